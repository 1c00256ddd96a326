import { describe, expect, it } from 'vitest';
import type { PaymentLinkSyncResult } from '../../../src/flows/payment-link/activities-contract.js';
import type { LinkCommandResult } from '../../../src/flows/payment-link/contract.js';
import { PaymentLinkState } from '../../../src/flows/payment-link/state.js';

// The payment-link run's state between its handlers and its loop, without a Temporal server.

const memo = (commandId: string) => ({
  kind: 'recordDebitMemo' as const,
  command: { commandId, amountCents: 500, description: 'late fee' },
});
const done = (commandId: string): LinkCommandResult => ({
  commandId,
  kind: 'recordDebitMemo',
  status: 'DONE',
  recordId: `dm_${commandId}`,
  externalReferenceId: `booksync:${commandId}`,
  at: '2026-11-23T10:00:00Z',
});

describe('PaymentLinkState', () => {
  it('queues a command once and counts the repeat', () => {
    const state = new PaymentLinkState({ paymentLinkId: 'pl_1' }, '2026-11-23T10:00:00Z');
    state.enqueue(memo('c1'));
    state.enqueue(memo('c1'));
    expect(state.view.duplicatesDropped).toBe(1);
    expect(state.takeBatch().map((q) => q.command.commandId)).toEqual(['c1']);
    expect(state.hasQueued).toBe(false);
  });

  it('answers an Update once its batch is written and fetched, with the amounts after it', () => {
    const state = new PaymentLinkState({ paymentLinkId: 'pl_1' }, '2026-11-23T10:00:00Z');
    expect(state.enqueueUpdate(memo('c2'))).toBe(true);
    expect(state.settled('c2')).toBeUndefined();
    state.takeBatch();
    state.remember(done('c2'));
    // Written, not yet fetched: still in flight, so not answered.
    expect(state.settled('c2')).toBeUndefined();
    state.synced(
      {
        status: 'ACTIVE',
        requestedAmountCents: 10_500,
        completedAmountCents: 0,
        debitMemoAmountCents: 500,
        externalPayments: [],
        debitMemos: [],
        booked: [],
        posted: ['debit-memo:dm_c2'],
        reversed: [],
      } as unknown as PaymentLinkSyncResult,
      'recordDebitMemo',
      '2026-11-23T10:00:01Z',
    );
    state.finishBatch();
    expect(state.answer('c2')).toEqual({
      result: done('c2'),
      link: { requestedAmountCents: 10_500, completedAmountCents: 0, debitMemoAmountCents: 500 },
    });
    // The same command again is answered from what the run kept, not queued a second time.
    expect(state.enqueueUpdate(memo('c2'))).toBe(true);
    expect(state.hasQueued).toBe(false);
  });

  it('refuses an Update for a command seen in an earlier run whose outcome is no longer kept', () => {
    const state = new PaymentLinkState(
      { paymentLinkId: 'pl_1', seenCommandIds: ['old'] },
      '2026-11-23T10:00:00Z',
    );
    expect(state.enqueueUpdate(memo('old'))).toBe(false);
    const kept = new PaymentLinkState(
      { paymentLinkId: 'pl_1', seenCommandIds: ['old'], commands: [done('old')] },
      '2026-11-23T10:00:00Z',
    );
    expect(kept.enqueueUpdate(memo('old'))).toBe(true);
    expect(kept.settled('old')).toEqual(done('old'));
  });

  it('keeps the last 20 command results', () => {
    const state = new PaymentLinkState({ paymentLinkId: 'pl_1' }, '2026-11-23T10:00:00Z');
    for (let i = 1; i <= 25; i++) state.remember(done(`c${i}`));
    expect(state.view.commands.map((c) => c.commandId)).toEqual(
      Array.from({ length: 20 }, (_, i) => `c${i + 6}`),
    );
  });
});
