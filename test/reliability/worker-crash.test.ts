import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actualEntries } from '../e2e/expected-books.js';
import { hledgerCheck } from '../support/hledger.js';
import { ProcessStack } from '../support/process-stack.js';
import { waitFor } from '../support/wait-for.js';
import { hasAll, runPaymentScenario } from './scenario.js';

// booksync's worker is `node bin/booksync.js worker`, a separate OS process, killed with SIGKILL while it has
// activities and workflow tasks in flight, then started again. Temporal re-runs what the dead worker held
// (activity start-to-close timeout, workflow task timeout); the ledger's keys make repeats no-ops. The books
// must come out exactly as a clean run's: computed from the scenario's amounts, not from the ledger.

const payments = Number(process.env.CHAOS_PAYMENTS ?? 300);

describe('worker process SIGKILLed mid-scenario', () => {
  let stack: ProcessStack;
  const figures: Record<string, number | string> = {};

  beforeAll(async () => {
    stack = await ProcessStack.start();
  }, 300_000);
  afterAll(async () => {
    console.info('[worker-crash figures]', JSON.stringify(figures));
    await stack?.stop();
  });

  it(`books ${payments} card and ACH payments with refunds exactly once each, as a clean run would, after the worker is SIGKILLed with work in flight and restarted`, async () => {
    const started = Date.now();
    const workflowsSeen: string[] = [];
    let killedAt = -1;
    let entriesAtKill = -1;
    let busyAtKill = 0;
    let restart: Promise<unknown> | null = null;

    const { expected } = await runPaymentScenario(stack, {
      count: payments,
      label: 'crash',
      afterPayment: async (i) => {
        if (killedAt >= 0 || i < Math.floor(payments / 4)) return;
        // A quarter in: kill as soon as some work is visibly under way on the worker. At the last payment,
        // wait for it: on a loaded machine the worker may not have booked anything yet.
        const last = i === payments - 1;
        let entries = await stack.entryCount();
        if (entries === 0 && !last) return;
        if (entries === 0) {
          entries = await waitFor(
            'a first entry booked',
            async () => (await stack.entryCount()) || undefined,
            120_000,
            250,
          );
        }
        workflowsSeen.splice(0, workflowsSeen.length, ...(await stack.workflowIds()));
        const busy = await stack.busyWorkflows(workflowsSeen);
        if (busy === 0 && i < payments / 2) return;
        const worker = stack.worker;
        await stack.killWorker('SIGKILL');
        expect(worker?.child.signalCode).toBe('SIGKILL');
        killedAt = i;
        entriesAtKill = entries;
        busyAtKill = busy;
        // The scenario goes on while the worker is down; the ingress keeps accepting (Temporal is up).
        restart = stack.startWorker();
      },
    });
    figures.scenarioSeconds = Math.round((Date.now() - started) / 1000);
    expect(killedAt).toBeGreaterThanOrEqual(0);
    await restart;
    figures.killedAfterPayment = killedAt;
    figures.entriesAtKill = entriesAtKill;
    figures.busyWorkflowsAtKill = busyAtKill;
    figures.expectedEntries = expected.entries.size;
    // The kill happened mid-scenario with work in flight, not before or after it.
    expect(busyAtKill).toBeGreaterThan(0);
    expect(entriesAtKill).toBeGreaterThan(0);
    expect(entriesAtKill).toBeLessThan(expected.entries.size);

    await waitFor(
      'every expected entry booked',
      async () => hasAll(expected)(await stack.books()),
      600_000,
      2_000,
    );
    await stack.waitForQuiet(300_000);
    figures.totalSeconds = Math.round((Date.now() - started) / 1000);

    const books = await stack.books();
    // Same keys, same net lines, nothing more (a duplicate would be an extra key or a versioned one).
    // Named when it fails (once in CI under load: 872 for 870, not reproduced since): the keys no clean run
    // books, with what they reverse.
    const extra = Object.entries(books.entries)
      .filter(([key]) => !expected.entries.has(key))
      .map(([key, entry]) => `${key}${entry.reverses ? ` (reverses ${entry.reverses})` : ''}`);
    expect(Object.keys(books.entries).length, `entries no clean run books: ${extra.join(', ')}`).toBe(
      expected.entries.size,
    );
    expect(actualEntries(books)).toEqual(expected.entries);
    expect(books.balances).toEqual(expected.balances());
    expect(books.balanced).toBe(true);
    for (const entry of Object.values(books.entries)) {
      expect(entry.reverses).toBeNull();
      expect(entry.lines.reduce((sum, l) => sum + l.amountCents, 0)).toBe(0);
    }
    // An independent tool agrees: every transaction balances and the closing balances are the expected ones.
    const { EmbeddedLedger } = await import('../../src/ledger/embedded-ledger.js');
    const ledger = EmbeddedLedger.open({ path: stack.ledgerPath });
    try {
      await hledgerCheck(ledger, stack.dir, expected.balances());
    } finally {
      ledger.close();
    }

    // Every delivery was acknowledged: nothing was lost between the emulator and Temporal either.
    const log = await stack.events();
    expect(log.length).toBe(payments + Math.ceil(payments / 5));
    figures.workerStarts = stack.workerStarts;
  }, 900_000);
});
