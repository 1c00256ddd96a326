import type { SandboxEvent } from '@booksync/emulator/sandbox-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actualEntries, ExpectedBooks } from '../e2e/expected-books.js';
import { ProcessStack } from '../support/process-stack.js';
import { waitFor } from '../support/wait-for.js';
import { hasAll, runPaymentScenario } from './scenario.js';

// The Temporal dev server (a process, SQLite file) is stopped while the emulator keeps emitting webhooks.
// The ingress cannot hand them to Temporal and answers 503; the emulator's DirectHttpDispatcher retries with
// a compressed schedule, 1/2/4/8 s between 5 attempts (the spec's 3/6/12/24 s divided by 3, rounded), each
// attempt waiting up to the ingress's 5 s signal timeout. A short outage (the server restarted on the same
// port and file inside that budget) loses nothing. A longer one spends all 5 attempts: the deliveries are
// lost, and `booksync reconcile --all` (the reconciliation workflow behind the Schedule) repairs the books.

const backoffMs = [1_000, 2_000, 4_000, 8_000];
const attemptsPerEvent = backoffMs.length + 1;

const ok = (a: { statusCode: number | null }) =>
  a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;

describe('Temporal outage while deliveries arrive', () => {
  let stack: ProcessStack;
  const expected = new ExpectedBooks();
  const figures: Record<string, number> = {};
  let known = new Set<string>();

  const newEvents = async (): Promise<SandboxEvent[]> =>
    (await stack.events()).filter((e) => !known.has(e.event.id));
  const remember = async () => {
    known = new Set((await stack.events()).map((e) => e.event.id));
  };
  /** The worker process may not outlive a long outage; production would restart it, so does the test. */
  const ensureWorker = async () => {
    if (!stack.worker || stack.worker.child.exitCode !== null || stack.worker.child.signalCode !== null) {
      await stack.startWorker();
    }
  };

  beforeAll(async () => {
    stack = await ProcessStack.start({ backoffMs });
    await runPaymentScenario(stack, { count: 4, label: 'before outage' }, expected);
    await waitFor(
      'books before the outage',
      async () => hasAll(expected)(await stack.books()),
      180_000,
      1_000,
    );
    await stack.waitForQuiet();
    await remember();
  }, 400_000);
  afterAll(async () => {
    console.info('[temporal-outage figures]', JSON.stringify(figures));
    await stack?.stop();
  });

  it('loses nothing in a short outage: the ingress answers 503, the sender retries, and every delivery lands once the server is back on the same port and file', async () => {
    const down = Date.now();
    await stack.stopTemporal();
    const health = await fetch(`${stack.ingressUrl}/readyz`);
    expect(health.status).toBe(503);

    await runPaymentScenario(stack, { count: 6, label: 'short outage' }, expected);
    // Every new event met the outage: a 503 from the ingress, no 2xx.
    await waitFor(
      'every new event answered 503 at least once',
      async () => {
        const events = await newEvents();
        return (
          events.length === 6 + 2 &&
          events.every((e) => e.attempts.some((a) => a.statusCode === 503) && !e.attempts.some(ok))
        );
      },
      60_000,
      250,
    );
    await stack.startTemporal();
    figures.shortOutageSeconds = Math.round((Date.now() - down) / 1000);
    await ensureWorker();

    await waitFor(
      'short-outage payments booked',
      async () => hasAll(expected)(await stack.books()),
      300_000,
      1_000,
    );
    await stack.waitForQuiet();
    const events = await newEvents();
    for (const entry of events) {
      expect(entry.attempts.length).toBeLessThanOrEqual(attemptsPerEvent);
      expect(entry.attempts.some((a) => a.statusCode === 503)).toBe(true);
      expect(entry.attempts.at(-1)?.statusCode).toBe(200);
    }
    figures.shortOutageMaxAttempts = Math.max(...events.map((e) => e.attempts.length));
    const books = await stack.books();
    expect(actualEntries(books)).toEqual(expected.entries);
    expect(books.balances).toEqual(expected.balances());
    await remember();
  }, 600_000);

  it('loses the deliveries of an outage longer than all 5 attempts, and booksync reconcile books exactly what they carried', async () => {
    const down = Date.now();
    await stack.stopTemporal();
    const lost = new ExpectedBooks();
    const before = new Map(expected.entries);
    await runPaymentScenario(stack, { count: 4, label: 'long outage' }, lost);
    for (const [key, lines] of lost.entries) expected.entries.set(key, lines);

    await waitFor(
      'every attempt of every new event spent',
      async () => {
        const events = await newEvents();
        return (
          events.length === 4 + 1 &&
          events.every((e) => e.attempts.length === attemptsPerEvent && !e.attempts.some(ok))
        );
      },
      240_000,
      1_000,
    );
    await stack.startTemporal();
    figures.longOutageSeconds = Math.round((Date.now() - down) / 1000);
    await ensureWorker();
    // Nothing retries any more: the books stay without the outage's payments.
    await stack.waitForQuiet(300_000, { allowUndelivered: true });
    const gap = await stack.books();
    expect(actualEntries(gap)).toEqual(before);
    for (const entry of await newEvents()) expect(entry.attempts.map((a) => a.statusCode)).not.toContain(200);

    const started = Date.now();
    const run = await stack.runCli(['reconcile', '--all', '--timeout', '300']);
    figures.reconcileSeconds = Math.round((Date.now() - started) / 1000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/fixed: posted .*payment \d+/);
    // Walking every link, reconciliation also invoices the links nothing had announced yet: the seed's.
    for await (const link of stack.service.paymentLinks()) {
      if (link.reusable || link.payments.length > 0) continue;
      expected.invoice(link.id, link.requestedAmountCents - link.debitMemoAmountCents);
    }

    const books = await stack.books();
    expect(actualEntries(books)).toEqual(expected.entries);
    expect(books.balances).toEqual(expected.balances());
    expect(books.balanced).toBe(true);

    // A second reconciliation finds nothing to fix: the repair was exact, not approximate.
    const again = await stack.runCli(['reconcile', '--all', '--timeout', '300']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\(0 entries\)/);
    expect(actualEntries(await stack.books())).toEqual(expected.entries);
  }, 600_000);
});
