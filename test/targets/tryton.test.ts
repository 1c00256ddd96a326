import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { createTrytonTarget, type TrytonTarget } from '../../src/targets/tryton/index.js';
import { startTryton, type TrytonServer } from '../support/tryton.js';
import { describeTargetContract, documentsForContract } from './target-contract.js';

// The Tryton target against a real Tryton 8.2 on PostgreSQL (test/support/tryton.ts), no mocks: what Tryton
// itself reports (balances, amount to pay, invoice state, the reversal's origin) is what is asserted.

let tryton: TrytonServer;
let target: TrytonTarget;

const connect = (accounts = defaultAccountCodes) =>
  createTrytonTarget({
    url: tryton.url,
    database: tryton.database,
    username: tryton.username,
    password: tryton.password,
    accounts,
    matching: 'match-existing',
  });
const noIndex = { mayExist: () => true, refusals: () => 0, pushed: () => null };

beforeAll(async () => {
  tryton = await startTryton();
  target = connect();
  await target.verify();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

describeTargetContract('tryton', () => ({
  target,
  fresh: async () => connect(),
  countByKey: async (key) => {
    const domain = [['description', 'like', `booksync:${key} %`]];
    const invoices = await tryton.rpc.model<number[]>('account.invoice', 'search', domain, 0, null, null);
    const moves = await tryton.rpc.model<number[]>('account.move', 'search', domain, 0, null, null);
    return invoices.length + moves.length;
  },
  reversedAt: async (remoteIds) => {
    const moves = remoteIds.filter((r) => r.startsWith('account.move,')).map((r) => Number(r.split(',')[1]));
    const rows = await tryton.rpc.model<{ origin: string | null }[]>('account.move', 'read', moves, [
      'origin',
    ]);
    return rows.flatMap((r) => (r.origin ? [r.origin] : []));
  },
}));

describe('what Tryton shows', () => {
  it('an invoice paid in part, then in full (paid), then owed again after the payment is reversed', async () => {
    const docs = documentsForContract();
    await target.push(docs.invoice, noIndex);
    const link = docs.invoice.invoice!.paymentLinkId;
    expect(await tryton.amountToPay(link)).toBe(120_00);
    await target.push(docs.payment, noIndex);
    expect(await tryton.amountToPay(link)).toBe(70_00);
    expect(await tryton.amountToPayByNumber(docs.invoice.invoice!.number)).toBe(70_00);
    const rest = {
      ...docs.payment,
      key: `payment:rest_${docs.run}`,
      amountCents: 70_00,
      contentHash: '4'.repeat(64),
      lines: [
        { role: 'ProcessorClearing' as const, amountCents: 70_00 },
        { role: 'AccountsReceivable' as const, amountCents: -70_00 },
      ],
    };
    await target.push(rest, noIndex);
    expect(await tryton.amountToPay(link)).toBe(0);
    const state = async () =>
      (
        await tryton.rpc.searchRead<{ state: string }>(
          'account.invoice',
          [['comment', '=', `booksync-link:${link}`]],
          ['state'],
        )
      )[0]?.state;
    expect(await state()).toBe('paid');

    const reversed = await target.push({ ...docs.reversal }, noIndex);
    expect(await tryton.amountToPay(link)).toBe(50_00);
    expect(await state()).toBe('posted');
    // Tryton's own cancellation: the reversing move names the original as its origin.
    const [original] = (await target.find(docs.payment.key))!.remoteIds;
    const [reversal] = await tryton.rpc.model<{ origin: string }[]>(
      'account.move',
      'read',
      [Number(reversed.remoteIds[0]!.split(',')[1])],
      ['origin'],
    );
    expect(reversal?.origin).toBe(original);
  });

  it("waits for Tryton's worker to turn a paid-off invoice paid; with the worker stopped, the push is unavailable, naming the invoice", async () => {
    const docs = documentsForContract();
    const link = docs.invoice.invoice!.paymentLinkId;
    const inFull = {
      ...docs.payment,
      amountCents: 120_00,
      lines: [
        { role: 'ProcessorClearing' as const, amountCents: 120_00 },
        { role: 'AccountsReceivable' as const, amountCents: -120_00 },
      ],
    };
    const impatient = createTrytonTarget({
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts: defaultAccountCodes,
      matching: 'match-existing',
      processedWithinMs: 1_500,
    });
    await impatient.verify();
    await impatient.push(docs.invoice, noIndex);
    const state = async () =>
      (
        await tryton.rpc.searchRead<{ id: number; state: string }>(
          'account.invoice',
          [['comment', '=', `booksync-link:${link}`]],
          ['state'],
        )
      )[0];
    await tryton.stopWorker();
    try {
      const error = await impatient.push(inFull, noIndex).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TargetUnavailableError');
      const invoice = await state();
      expect(error?.message).toContain(`invoice ${invoice?.id} (posted, lines reconciled)`);
      expect(error?.message).toMatch(/trytond-worker/);
      // The reconciliation is made; Tryton's task to mark the invoice paid waits in its queue.
      expect(invoice?.state).toBe('posted');
    } finally {
      tryton.startWorker();
    }
    // A worker started afresh loads Tryton's modules first: many seconds on a busy machine.
    await expect.poll(async () => (await state())?.state, { timeout: 120_000, interval: 500 }).toBe('paid');
    // Pushed again (the retry): found, not made twice; nothing owed.
    expect((await impatient.push(inFull, noIndex)).created).toBe(false);
    expect(await tryton.amountToPay(link)).toBe(0);
  }, 180_000);

  it('a refund reopens a paid invoice: owed again by the refunded amount', async () => {
    const docs = documentsForContract();
    const link = docs.invoice.invoice!.paymentLinkId;
    await target.push(docs.invoice, noIndex);
    await target.push(
      {
        ...docs.payment,
        amountCents: 120_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 120_00 },
          { role: 'AccountsReceivable', amountCents: -120_00 },
        ],
      },
      noIndex,
    );
    expect(await tryton.amountToPay(link)).toBe(0);
    await target.push(
      {
        ...docs.payment,
        key: `refund-reopen:re_${docs.run}`,
        kind: 'refund-reopen',
        amountCents: 20_00,
        lines: [
          { role: 'AccountsReceivable', amountCents: 20_00 },
          { role: 'Refunds', amountCents: -20_00 },
        ],
        contentHash: '5'.repeat(64),
      },
      noIndex,
    );
    expect(await tryton.amountToPay(link)).toBe(20_00);
  });

  it('account balances as Tryton computes them follow the documents', async () => {
    const codes = [
      defaultAccountCodes.ProcessorClearing,
      defaultAccountCodes.AccountsReceivable,
      defaultAccountCodes.Revenue,
    ];
    const before = await tryton.balances(codes);
    const docs = documentsForContract();
    await target.push(docs.invoice, noIndex);
    await target.push(docs.payment, noIndex);
    const after = await tryton.balances(codes);
    expect(after[defaultAccountCodes.Revenue]! - before[defaultAccountCodes.Revenue]!).toBe(-120_00);
    expect(
      after[defaultAccountCodes.AccountsReceivable]! - before[defaultAccountCodes.AccountsReceivable]!,
    ).toBe(70_00);
    expect(
      after[defaultAccountCodes.ProcessorClearing]! - before[defaultAccountCodes.ProcessorClearing]!,
    ).toBe(50_00);
  });

  it("a period closed since the lock was read: Tryton's refusal makes the push read it again and go through dated after it", async () => {
    const docs = documentsForContract();
    const link = docs.invoice.invoice!.paymentLinkId;
    // A worker that read Tryton's periods while they were open.
    const stale = connect();
    expect(await stale.lockedThrough()).toBeNull();
    // Customer invoices are issued today (their accounting date is the entry's): close both periods.
    const today = new Date().toISOString().slice(0, 10);
    const months = [...new Set([docs.invoice.date.slice(0, 7), today.slice(0, 7)])].sort();
    const periods = months.map((m) => `${m}-15`);
    const [year, month] = (months.at(-1) as string).split('-').map(Number) as [number, number];
    const lastClosedDay = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    for (const date of periods) await tryton.setPeriodState(date, 'close');
    try {
      // Refused by Tryton ("reopen the period"), read again and pushed once more: dated after the close, the
      // draft Tryton kept from the refused post re-dated, not made twice.
      expect((await stale.push(docs.invoice, noIndex)).created).toBe(true);
      expect(await stale.lockedThrough()).toBe(lastClosedDay);
    } finally {
      for (const date of periods) await tryton.setPeriodState(date, 'reopen');
    }
    expect((await connect().push(docs.invoice, noIndex)).created).toBe(false);
    expect((await connect().push(docs.payment, noIndex)).created).toBe(true);
    expect(await tryton.amountToPay(link)).toBe(70_00);
    const invoices = await tryton.rpc.model<number[]>(
      'account.invoice',
      'search',
      [['comment', '=', `booksync-link:${link}`]],
      0,
      null,
      null,
    );
    expect(invoices).toHaveLength(1);
  });

  it('finds a key exactly: `_` in an id is not a wildcard', async () => {
    const docs = documentsForContract();
    await target.push(docs.invoice, noIndex);
    await target.push({ ...docs.payment, key: `payment:x${docs.run}Y1` }, noIndex);
    expect(await target.find(`payment:x${docs.run}_1`)).toBeNull();
    expect(await target.find(`payment:x${docs.run}Y1`)).not.toBeNull();
  });

  it('stops start-up on an account missing from the chart, naming it', async () => {
    const error = await connect({ ...defaultAccountCodes, BillExpenses: '6999' })
      .verify()
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(error?.name).toBe('TargetConfigurationError');
    expect(error?.message).toContain('account 6999 (BillExpenses) is not in Tryton');
  });

  it('answers TargetUnavailableError while Tryton is down, and works again after', async () => {
    const docs = documentsForContract();
    await tryton.stop();
    try {
      const error = await target.push(docs.invoice, noIndex).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TargetUnavailableError');
    } finally {
      await tryton.start();
    }
    expect((await target.push(docs.invoice, noIndex)).created).toBe(true);
  });
});
