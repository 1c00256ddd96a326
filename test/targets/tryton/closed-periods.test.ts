import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { centsOf, isoDateOf, type TrytonDecimal } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { closedPeriodDocuments, lockedThrough } from '../closed-period-documents.js';

// Against a real Tryton 8.2 on PostgreSQL (test/support/tryton.ts), no mocks: January's period is
// closed through Tryton's own API (account.period close), and what Tryton then holds is asserted: January's
// moves unchanged, a February move reversing the January payment, the invoice and the party owing again, a
// February payment still cancelled in place, a late January document dated February 1, and Tryton's
// closed-period warning never confirmed by booksync.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);

interface LineRow {
  id: number;
  account: number;
  party: number | null;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  reconciliation: number | null;
  origin: string | null;
  description: string | null;
}
interface MoveRow {
  id: number;
  date: unknown;
  state: string;
  origin: string | null;
  period: number;
  description: string | null;
  lines: number[];
}

const idOf = (remoteId: string | undefined) => Number(String(remoteId).split(',')[1]);
const moveRef = (record: RemoteRecord | undefined) =>
  idOf(record?.remoteIds.find((r) => r.startsWith('account.move,')));

async function move(id: number) {
  const [row] = await tryton.rpc.model<MoveRow[]>(
    'account.move',
    'read',
    [id],
    ['date', 'state', 'origin', 'period', 'description', 'lines'],
  );
  const lines = await tryton.rpc.model<LineRow[]>('account.move.line', 'read', row?.lines ?? [], [
    'account',
    'party',
    'debit',
    'credit',
    'reconciliation',
    'origin',
    'description',
  ]);
  return { ...(row as MoveRow), date: isoDateOf(row?.date), lines: lines.sort((a, b) => a.id - b.id) };
}

/** What a closed period must keep: each line's account, party and amounts, and the move's date and state. */
const closedView = (m: Awaited<ReturnType<typeof move>>) => ({
  date: m.date,
  state: m.state,
  period: m.period,
  lines: m.lines.map((l) => ({
    id: l.id,
    account: l.account,
    party: l.party,
    debit: centsOf(l.debit),
    credit: centsOf(l.credit),
  })),
});

/** Moves whose origin is the move: Tryton's cancel moves name the original so. */
const movesFrom = (id: number) =>
  tryton.rpc.model<number[]>(
    'account.move',
    'search',
    [['origin', '=', `account.move,${id}`]],
    0,
    null,
    null,
  );

async function partyBalance(field: 'receivable' | 'payable', serviceId: string): Promise<number> {
  const [party] = await tryton.rpc.searchRead<Record<string, TrytonDecimal>>(
    'party.party',
    [['identifiers.code', '=', `booksync:${serviceId}`]],
    [field],
  );
  return centsOf(party?.[field]);
}

async function periodOf(date: string): Promise<{ id: number; state: string }> {
  const [period] = await tryton.rpc.searchRead<{ id: number; state: string }>(
    'account.period',
    [
      [
        'start_date',
        '<=',
        { __class__: 'date', year: +date.slice(0, 4), month: +date.slice(5, 7), day: +date.slice(8) },
      ],
      [
        'end_date',
        '>=',
        { __class__: 'date', year: +date.slice(0, 4), month: +date.slice(5, 7), day: +date.slice(8) },
      ],
      ['type', '=', 'standard'],
    ],
    ['state'],
  );
  return period as { id: number; state: string };
}

function pusher() {
  const { pushed, context } = pushIndex({ mayExist: true });
  return {
    pushed,
    async push(doc: TargetDocument, target = connect()) {
      const result = await target.push(doc, context);
      pushed.set(doc.key, result);
      return result;
    },
  };
}

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

describe('Tryton: closed periods', { timeout: 120_000 }, () => {
  it('reverses a January payment in February after January is closed, cancels a February one in place, dates a late one February 1', async () => {
    const docs = closedPeriodDocuments();
    const { pushed, push } = pusher();
    const target = connect();
    expect(await target.lockedThrough()).toBeNull();
    await push(docs.invoice, target);
    await push(docs.january, target);
    const link = docs.invoice.invoice?.paymentLinkId as string;
    expect(await tryton.amountToPay(link)).toBe(70_00);
    const invoiceMove = moveRef(pushed.get(docs.invoice.key));
    const januaryMove = moveRef(pushed.get(docs.january.key));
    const before = {
      invoice: closedView(await move(invoiceMove)),
      january: closedView(await move(januaryMove)),
    };

    // January closed in Tryton, through its API.
    await tryton.setPeriodState('2026-01-15', 'close');
    expect((await periodOf('2026-01-15')).state).toBe('closed');
    expect(await connect().lockedThrough()).toBe(lockedThrough);

    const reversed = await push(docs.januaryReversed);
    // January unchanged: same lines, posted, not cancelled (no move of Tryton's names it as its origin but
    // the new February one).
    expect(closedView(await move(invoiceMove))).toEqual(before.invoice);
    expect(closedView(await move(januaryMove))).toEqual(before.january);
    expect((await move(januaryMove)).state).toBe('posted');
    const reversal = await move(moveRef(reversed));
    expect(await movesFrom(januaryMove)).toEqual([reversal.id]);
    // A new move dated in February reverses it: the original's lines negated, posted, in February's period.
    expect(reversal).toMatchObject({
      date: '2026-02-03',
      state: 'posted',
      origin: `account.move,${januaryMove}`,
      period: (await periodOf('2026-02-03')).id,
    });
    expect(reversal.description).toMatch(new RegExp(`^booksync:${docs.januaryReversed.key} `));
    const original = await move(januaryMove);
    const byAccount = (a: { account: number }, b: { account: number }) => a.account - b.account;
    expect(
      reversal.lines
        .map((l) => ({
          account: l.account,
          party: l.party,
          debit: centsOf(l.debit),
          credit: centsOf(l.credit),
        }))
        .sort(byAccount),
    ).toEqual(
      original.lines
        .map((l) => ({
          account: l.account,
          party: l.party,
          debit: centsOf(l.credit),
          credit: centsOf(l.debit),
        }))
        .sort(byAccount),
    );
    // The January payment line is reconciled with its reversal, dated in February (the closed January's
    // aged balance still shows it as it was); the invoice and the party owe the 50.00 again.
    const receivable = reversal.lines.find((l) => centsOf(l.debit) === 50_00 && l.party !== null);
    const paid = original.lines.find((l) => l.id === Number(receivable?.origin?.split(',')[1]));
    expect(paid?.reconciliation).not.toBeNull();
    expect(receivable?.reconciliation).toBe(paid?.reconciliation);
    const [reconciliation] = await tryton.rpc.model<{ date: unknown }[]>(
      'account.move.reconciliation',
      'read',
      [paid?.reconciliation],
      ['date'],
    );
    expect(isoDateOf(reconciliation?.date)! > lockedThrough).toBe(true);
    expect(await tryton.amountToPay(link)).toBe(120_00);
    expect(await partyBalance('receivable', docs.invoice.customer!.serviceId)).toBe(120_00);
    // Found again by its key, from a restarted worker: nothing twice.
    const again = await connect().push(docs.januaryReversed, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(again).toMatchObject({ created: false, remoteIds: reversed.remoteIds });
    expect(await movesFrom(januaryMove)).toHaveLength(1);
    expect(await tryton.amountToPay(link)).toBe(120_00);

    // Paid and reversed in February, the open month: Tryton's Cancel Moves in place, as before (the cancel
    // move dated as the payment, its origin the payment).
    const february = await push(docs.february);
    expect(await tryton.amountToPay(link)).toBe(100_00);
    const cancelled = await push(docs.februaryReversed);
    const cancel = await move(moveRef(cancelled));
    expect(cancel).toMatchObject({
      date: '2026-02-05',
      state: 'posted',
      origin: `account.move,${moveRef(february)}`,
    });
    expect(await tryton.amountToPay(link)).toBe(120_00);

    // Dated January 20, pushed after the close: dated February 1, its own date in its description.
    const late = await push(docs.late);
    const lateMove = await move(moveRef(late));
    expect(lateMove.date).toBe('2026-02-01');
    expect(lateMove.description).toContain('dated 2026-01-20 in booksync; books closed through 2026-01-31');
    expect(lateMove.lines.every((l) => l.description?.includes('dated 2026-01-20 in booksync'))).toBe(true);
    expect(await tryton.amountToPay(link)).toBe(110_00);
    expect(
      await connect().push(docs.late, { mayExist: () => true, refusals: () => 0, pushed: () => null }),
    ).toMatchObject({
      created: false,
    });
  });

  it('an invoice paid in full is owed again in full when its January payment is reversed after the close', async () => {
    const docs = closedPeriodDocuments();
    const { pushed, push } = pusher();
    const link = docs.invoice.invoice?.paymentLinkId as string;
    const full: TargetDocument = {
      ...docs.january,
      amountCents: 120_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 120_00 },
        { role: 'AccountsReceivable', amountCents: -120_00 },
      ],
    };
    await tryton.setPeriodState('2026-01-15', 'reopen');
    await push(docs.invoice);
    await push(full);
    const state = async () =>
      (
        await tryton.rpc.searchRead<{ state: string }>(
          'account.invoice',
          [['comment', '=', `booksync-link:${link}`]],
          ['state'],
        )
      )[0]?.state;
    expect(await state()).toBe('paid');
    const januaryMove = moveRef(pushed.get(full.key));
    const before = closedView(await move(januaryMove));
    await tryton.setPeriodState('2026-01-15', 'close');

    await push({
      ...docs.januaryReversed,
      amountCents: 120_00,
      lines: full.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    });
    expect(closedView(await move(januaryMove))).toEqual(before);
    expect(await state()).toBe('posted');
    expect(await tryton.amountToPay(link)).toBe(120_00);
    expect(await partyBalance('receivable', docs.invoice.customer!.serviceId)).toBe(120_00);
  });

  it('a bill paid in January, its reconciliation in January: kept; the vendor is owed again and the bill shows it owed', async () => {
    const docs = closedPeriodDocuments();
    const { pushed, push } = pusher();
    const vendor = { serviceId: `ven_${docs.run}`, name: `Vendor ${docs.run}`, email: null };
    const bill: TargetDocument = {
      key: `bill:bill_${docs.run}`,
      kind: 'bill',
      date: '2026-01-08',
      description: `Bill bill_${docs.run}`,
      amountCents: 80_00,
      lines: [
        { role: 'BillExpenses', amountCents: 80_00 },
        { role: 'AccountsPayable', amountCents: -80_00 },
      ],
      contentHash: '1'.repeat(64),
      bill: { billId: `bill_${docs.run}`, number: `B-${docs.run}` },
      vendor,
    };
    const sent: TargetDocument = {
      key: `bill-payment-sent:bp_${docs.run}`,
      kind: 'bill-payment-sent',
      date: '2026-01-12',
      description: `Bill payment bp_${docs.run} sent`,
      amountCents: 80_00,
      lines: [
        { role: 'AccountsPayable', amountCents: 80_00 },
        { role: 'OutgoingPaymentsClearing', amountCents: -80_00 },
      ],
      contentHash: '2'.repeat(64),
      bill: bill.bill,
      vendor,
      reference: `bp_${docs.run}`,
    };
    await tryton.setPeriodState('2026-01-15', 'reopen');
    await push(bill);
    await push(sent);
    const paidLine = (await move(moveRef(pushed.get(sent.key)))).lines.find((l) => l.party !== null);
    const [reconciliation] = await tryton.rpc.model<{ date: unknown }[]>(
      'account.move.reconciliation',
      'read',
      [paidLine?.reconciliation],
      ['date'],
    );
    expect(isoDateOf(reconciliation?.date)! <= lockedThrough).toBe(true);
    const before = closedView(await move(moveRef(pushed.get(sent.key))));
    await tryton.setPeriodState('2026-01-15', 'close');

    const reversed = await push({
      ...sent,
      key: `reversal:${sent.key}`,
      kind: 'reversal',
      date: '2026-02-04',
      description: `Reversal of ${sent.key}: check returned`,
      lines: sent.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      contentHash: '3'.repeat(64),
      reverses: sent.key,
      reason: 'check returned',
      originalDate: sent.date,
    });
    // The January payment and its January reconciliation with the bill are as closed.
    expect(closedView(await move(moveRef(pushed.get(sent.key))))).toEqual(before);
    expect(
      (await move(moveRef(pushed.get(sent.key)))).lines.find((l) => l.party !== null)?.reconciliation,
    ).toBe(paidLine?.reconciliation);
    // The reversal's payable line is open on the vendor, who is owed the 80.00 again (Tryton's party payable
    // is debit - credit: negative when the company owes).
    const reversal = await move(moveRef(reversed));
    expect(reversal.date).toBe('2026-02-04');
    expect(reversal.lines.find((l) => l.party !== null)).toMatchObject({ reconciliation: null });
    expect(await partyBalance('payable', vendor.serviceId)).toBe(-80_00);
    // And the bill owes it again: posted, the reversal among its additional moves, its amount to pay 80.00.
    const billId = idOf(pushed.get(bill.key)?.remoteIds.find((r) => r.startsWith('account.invoice,')));
    const [owed] = await tryton.rpc.model<
      { state: string; amount_to_pay: TrytonDecimal; additional_moves: number[] }[]
    >('account.invoice', 'read', [billId], ['state', 'amount_to_pay', 'additional_moves']);
    expect(owed).toMatchObject({ state: 'posted', additional_moves: [reversal.id] });
    expect(centsOf(owed?.amount_to_pay)).toBe(80_00);
  });

  it("never confirms Tryton's closed-period warning: cancelling a January move is refused with Tryton's message", async () => {
    const docs = closedPeriodDocuments();
    const { pushed, push } = pusher();
    await tryton.setPeriodState('2026-01-15', 'reopen');
    await push(docs.invoice);
    await push(docs.january);
    await tryton.setPeriodState('2026-01-15', 'close');
    const januaryMove = moveRef(pushed.get(docs.january.key));
    const target = connect();
    const warningsBefore = await tryton.rpc.model<number[]>('res.user.warning', 'search', [], 0, null, null);
    const error = await target.rpc
      .wizard('account.move.cancel', 'cancel', { default: { reversal: true } }, 'account.move', [januaryMove])
      .then(
        () => null,
        (e: Error) => e,
      );
    expect(error?.name).toBe('TargetRefusedError');
    expect(error?.message).toMatch(/is closed/);
    expect(error?.message).toContain('booksync does not confirm');
    expect(await tryton.rpc.model<number[]>('res.user.warning', 'search', [], 0, null, null)).toEqual(
      warningsBefore,
    );
    expect(await movesFrom(januaryMove)).toEqual([]);
    expect((await move(januaryMove)).state).toBe('posted');
  });

  it('a period closed since the lock was read: the cancel Tryton asks to confirm is not made, the reversal is dated after the close', async () => {
    const docs = closedPeriodDocuments();
    const { pushed, push } = pusher();
    const target = connect();
    await push(docs.invoice, target);
    await push(docs.february, target);
    const februaryMove = moveRef(pushed.get(docs.february.key));
    const before = closedView(await move(februaryMove));
    const warningsBefore = await tryton.rpc.model<number[]>('res.user.warning', 'search', [], 0, null, null);
    // February closed after this worker read the lock (January's): to it, a February reversal cancels in place.
    await tryton.setPeriodState('2026-02-15', 'close');
    try {
      const reversed = await push(docs.februaryReversed, target);
      expect(closedView(await move(februaryMove))).toEqual(before);
      const reversal = await move(moveRef(reversed));
      expect(reversal).toMatchObject({
        date: '2026-03-01',
        state: 'posted',
        origin: `account.move,${februaryMove}`,
      });
      expect(reversal.description).toContain('dated 2026-02-10 in booksync; books closed through 2026-02-28');
      expect(await movesFrom(februaryMove)).toEqual([reversal.id]);
      expect(await tryton.rpc.model<number[]>('res.user.warning', 'search', [], 0, null, null)).toEqual(
        warningsBefore,
      );
      expect(await tryton.amountToPay(docs.invoice.invoice?.paymentLinkId as string)).toBe(120_00);
    } finally {
      await tryton.setPeriodState('2026-02-15', 'reopen');
    }
  });

  it('a January document refused for a period closed since the lock was read is dated February 1 when pushed again, not made twice', async () => {
    const docs = closedPeriodDocuments();
    const { push } = pusher();
    await tryton.setPeriodState('2026-01-15', 'reopen');
    const target = connect();
    await push(docs.invoice, target);
    expect(await target.lockedThrough()).toBeNull();
    await tryton.setPeriodState('2026-01-15', 'close');
    const memo: TargetDocument = {
      ...docs.invoice,
      key: `debit-memo:dm_${docs.run}`,
      kind: 'debit-memo',
      date: '2026-01-20',
      description: `Late fee dm_${docs.run}`,
      amountCents: 15_00,
      lines: [
        { role: 'AccountsReceivable', amountCents: 15_00 },
        { role: 'FeeIncome', amountCents: -15_00 },
      ],
      contentHash: '6'.repeat(64),
    };
    // This worker read no lock: Tryton refuses the post into the closed January ("reopen the period"), the
    // push reads the lock again and goes once more, the draft dated February 1.
    const result = await push(memo, target);
    expect(result.created).toBe(true);
    const invoices = await tryton.rpc.searchRead<{
      accounting_date: unknown;
      state: string;
      description: string;
    }>(
      'account.invoice',
      [['description', 'like', `booksync:${memo.key} %`]],
      ['accounting_date', 'state', 'description'],
    );
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ state: 'posted' });
    expect(isoDateOf(invoices[0]?.accounting_date)).toBe('2026-02-01');
    expect(invoices[0]?.description).toContain(
      'dated 2026-01-20 in booksync; books closed through 2026-01-31',
    );
    expect((await move(moveRef(result))).date).toBe('2026-02-01');
  });
});
