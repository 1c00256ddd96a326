// biome-ignore-all lint/suspicious/noExplicitAny: the delivery log is untyped JSON to assert on
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Harness, newLink, startHarness } from '@booksync/emulator/harness';
import { attemptDelivery } from '@booksync/emulator/webhooks/delivery-attempt';
import { DirectHttpDispatcher } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import { afterEach, describe, expect, it } from 'vitest';

// Spec 6.3 rule 1: only a 2xx acknowledges. A receiver answering 307 towards a URL that answers 200 was counted
// as acknowledged (fetch followed the redirect). Now a 3xx is a failed attempt, retried on the schedule (E18),
// and the redirect target is never contacted. Subscriptions take http(s) URLs only (decision “Webhook subscription”).

/** A receiver whose /hook answers `statusOf(n)` (n = 1-based attempt) with a Location to its own /landed. */
async function redirectingReceiver(statusOf: (n: number) => number) {
  let hooks = 0;
  let landed = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/landed') {
        landed++;
        res.statusCode = 200;
        return res.end('ok');
      }
      hooks++;
      res.statusCode = statusOf(hooks);
      if (res.statusCode >= 300 && res.statusCode < 400) res.setHeader('location', '/landed');
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/hook`,
    counts: () => ({ hooks, landed }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let h: Harness | undefined;
let dispatcher: DirectHttpDispatcher | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await dispatcher?.idle();
  await h?.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function start(): Promise<Harness> {
  h = await startHarness({
    dispatcher: (store) => {
      dispatcher = new DirectHttpDispatcher({ store, backoffMs: [5, 10, 20, 40], timeoutMs: 1_000 });
      return dispatcher;
    },
  });
  return h;
}

/** Pays a fresh link (one payment.made event) and answers that event's delivery attempts once all are done. */
async function deliverOne(harness: Harness): Promise<any[]> {
  const link = await newLink(harness.api, 1000);
  const payment = await harness.api('POST', `/sandbox/paymentLinks/${link.id}/pay`, { method: 'Card' });
  expect(payment.status).toBe(201);
  await dispatcher!.idle();
  const log = await harness.api('GET', '/sandbox/events?category=payment.made');
  const entry = log.body.events.find((e: any) => e.event.associated_object_id === payment.body.id);
  return entry.attempts;
}

describe('webhook delivery does not follow redirects (6.3 rule 1, E18)', () => {
  it('a receiver answering 307 towards a 200 is never acknowledged: 5 failed attempts, the target untouched', async () => {
    const harness = await start();
    const hook = await redirectingReceiver(() => 307);
    cleanups.push(hook.close);
    expect((await harness.api('POST', '/webhook', { url: hook.url })).status).toBe(201);

    const attempts = await deliverOne(harness);
    expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 307],
      [2, 307],
      [3, 307],
      [4, 307],
      [5, 307],
    ]);
    expect(attempts.every((a) => /HTTP 307/.test(a.error))).toBe(true);
    expect(hook.counts()).toEqual({ hooks: 5, landed: 0 });
  });

  it('every 3xx is a failed attempt retried on the schedule, until a real 2xx', async () => {
    const harness = await start();
    const statuses = [301, 302, 303, 308];
    const hook = await redirectingReceiver((n) => statuses[n - 1] ?? 204);
    cleanups.push(hook.close);
    await harness.api('POST', '/webhook', { url: hook.url });

    const attempts = await deliverOne(harness);
    expect(attempts.map((a) => a.statusCode)).toEqual([301, 302, 303, 308, 204]);
    expect(attempts.at(-1).error).toBeNull();
    expect(hook.counts()).toEqual({ hooks: 5, landed: 0 });
  });

  it('the attempt itself (shared by the in-process and the Temporal dispatcher) reports a 3xx as not ok', async () => {
    const hook = await redirectingReceiver(() => 307);
    cleanups.push(hook.close);
    const result = await attemptDelivery({ url: hook.url, body: '{}', headers: {} }, 1_000);
    expect(result).toMatchObject({ ok: false, statusCode: 307 });
    expect(hook.counts().landed).toBe(0);
  });

  it('contacts nothing but http(s), even for a URL an older data file holds', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'data:text/plain,hi', 'not a url']) {
      expect(await attemptDelivery({ url, body: '{}', headers: {} }, 1_000)).toMatchObject({
        ok: false,
        statusCode: null,
        error: 'not an http(s) URL',
      });
    }
  });
});

describe('subscription URLs are http(s) only (decision “Webhook subscription”)', () => {
  it('answers 400 to any other scheme at POST /webhook and POST /sandbox/webhook/legacy, keeping the subscription', async () => {
    const harness = await start();
    const kept = await harness.api('POST', '/webhook', { url: 'https://hooks.example/booksync' });
    expect(kept.status).toBe(201);
    const refused = [
      'ftp://hooks.example/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/plain,hi',
      'gopher://hooks.example',
      'ws://hooks.example',
      'hooks.example/no-scheme',
      '',
    ];
    for (const url of refused) {
      for (const path of ['/webhook', '/sandbox/webhook/legacy']) {
        const answer = await harness.api('POST', path, { url });
        expect({ url, path, status: answer.status }).toEqual({ url, path, status: 400 });
        expect(answer.body.error).toMatch(/url/);
      }
    }
    expect((await harness.api('GET', '/webhook')).body.webhooks).toEqual([kept.body]);
  });
});
