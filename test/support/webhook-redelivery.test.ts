import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { SIGNATURE_HEADER, verify } from '@booksync/service-contract/webhook-signature';
import { afterEach, describe, expect, it } from 'vitest';
import { redeliverEverything } from './webhook-redelivery.js';

// The tests' redelivery plays the service's sender: an ingress that answers 503 (Temporal too busy to take
// the signal in time) is tried again, each attempt signed afresh, and an event never taken fails the test.

const secret = 'whsec_redelivery_test';
const event = (id: string) => ({ id, type: 'payment.updated', created: 1 }) as unknown as EventEnvelope;
const sandboxOf = (events: EventEnvelope[]) =>
  ({
    async *allEvents() {
      for (const e of events) yield { event: e, attempts: [] };
    },
  }) as unknown as SandboxClient;

interface Received {
  id: string;
  verified: boolean;
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An ingress on loopback answering each delivery with `answer(id, how many times it came before)`. */
async function ingress(
  answer: (id: string, before: number) => number,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const { id } = JSON.parse(body.toString()) as { id: string };
      const before = received.filter((r) => r.id === id).length;
      const header = request.headers[SIGNATURE_HEADER.toLowerCase()];
      received.push({ id, verified: verify(body, header, [secret]).ok });
      response.writeHead(answer(id, before)).end();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('redeliverEverything', () => {
  it('sends every event the given number of times, and tries an event again while the ingress answers 503', async () => {
    const { url, received } = await ingress((id, before) => (id === 'evt_2' && before < 2 ? 503 : 200));
    const count = await redeliverEverything({
      sandbox: sandboxOf([event('evt_1'), event('evt_2')]),
      ingressUrl: url,
      secret,
      times: 2,
      seed: 7,
      backoffMs: [5, 5, 5, 5],
    });
    expect(count).toBe(2);
    // evt_1 twice; evt_2's first copy answered 503 twice before its 200, its second copy taken at once.
    expect(received.filter((r) => r.id === 'evt_1')).toHaveLength(2);
    expect(received.filter((r) => r.id === 'evt_2')).toHaveLength(4);
    expect(received.every((r) => r.verified)).toBe(true);
  });

  it('fails naming the event and every answer once its five attempts are spent', async () => {
    const { url, received } = await ingress(() => 400);
    await expect(
      redeliverEverything({
        sandbox: sandboxOf([event('evt_refused')]),
        ingressUrl: url,
        secret,
        times: 1,
        seed: 7,
        backoffMs: [5, 5, 5, 5],
      }),
    ).rejects.toThrow('redelivery of evt_refused answered 400, 400, 400, 400, 400');
    expect(received).toHaveLength(5);
  });
});
