import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  accountingTargetWorkflowId,
  accountingTargetWorkflowType,
  entriesPostedSignal,
} from '../../../src/flows/push/contract.js';
import { PushWakeUp, WAKE_UP_GATHER_MS } from '../../../src/flows/push/wake-up.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../../src/ledger/embedded-ledger.js';
import type { LedgerEntryInput } from '../../../src/ledger/entry.js';
import { createLogger } from '../../../src/logging/logger.js';

// The push's wake-up: what the bookings write wakes one push workflow per target, a burst gathered into one
// signal each; nothing before the workflows are started, a repeat that books nothing wakes nothing, and a
// stopped wake-up sends nothing more.

const sale = (n: number): LedgerEntryInput => ({
  key: `payment:w${n}`,
  date: '2026-11-02',
  description: `payment ${n}`,
  lines: [
    { account: Accounts.ProcessorClearing, amountCents: 1_000 + n },
    { account: Accounts.AccountsReceivable, amountCents: -(1_000 + n) },
  ],
  links: { paymentId: `w${n}` },
});

interface Sent {
  type: string;
  workflowId: string;
  taskQueue: string;
  signal: string;
  args: unknown[];
}

/** A Temporal client that keeps what it was asked to send. */
function recordingClient(): { client: Client; sent: Sent[] } {
  const sent: Sent[] = [];
  const workflow = {
    async signalWithStart(
      type: string,
      options: Omit<Sent, 'type' | 'signal'> & { signal: { name: string } },
    ) {
      sent.push({
        type,
        workflowId: options.workflowId,
        taskQueue: options.taskQueue,
        signal: options.signal.name,
        args: options.args,
      });
    },
  };
  return { client: { workflow } as unknown as Client, sent };
}

const ledgers: EmbeddedLedger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
});

describe("the push's wake-up", () => {
  const settings = { pollEvery: '1m', retryMaximumInterval: '1m', heartbeatTimeout: '1m' };

  it('starts one push workflow per target, then wakes each once per burst of new entries', async () => {
    const ledger = EmbeddedLedger.open();
    ledgers.push(ledger);
    const { client, sent } = recordingClient();
    const wakeUp = new PushWakeUp(['tryton', 'xero'], settings, createLogger({ level: 'silent' }));
    const books = wakeUp.ledger(ledger);

    // Before the workflows are started, writes wake nothing.
    await books.post(sale(1));
    await sleep(WAKE_UP_GATHER_MS * 2);
    expect(sent).toEqual([]);

    await wakeUp.start(client, 'booksync');
    expect(sent.map((s) => [s.type, s.workflowId, s.taskQueue, s.signal])).toEqual([
      [
        accountingTargetWorkflowType,
        accountingTargetWorkflowId('tryton'),
        'booksync',
        entriesPostedSignal.name,
      ],
      [
        accountingTargetWorkflowType,
        accountingTargetWorkflowId('xero'),
        'booksync',
        entriesPostedSignal.name,
      ],
    ]);
    expect(sent[0]?.args).toEqual([{ target: 'tryton', ...settings }]);

    // A burst of five writes: one wake-up per target, after the gathering time.
    for (const n of [2, 3, 4]) await books.post(sale(n));
    await books.postMany([sale(5), sale(6)]);
    expect(sent).toHaveLength(2);
    await sleep(WAKE_UP_GATHER_MS * 2);
    expect(sent).toHaveLength(4);

    // A repeat books nothing and wakes nothing.
    await books.post(sale(2));
    await sleep(WAKE_UP_GATHER_MS * 2);
    expect(sent).toHaveLength(4);

    // Stopped between a write and its wake-up: nothing more is sent.
    await books.post(sale(7));
    wakeUp.stop();
    await sleep(WAKE_UP_GATHER_MS * 2);
    expect(sent).toHaveLength(4);
    expect((await ledger.get('payment:w7'))?.key).toBe('payment:w7');
  });
});
