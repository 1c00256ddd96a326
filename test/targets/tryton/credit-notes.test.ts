import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { centsOf, isoDateOf, type TrytonDecimal } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { closedPeriodDocuments, reversalDocument } from '../closed-period-documents.js';

// Credit notes in a real Tryton 8.2 on PostgreSQL: a lowered invoice is a
// credit note applied to the invoice, so the invoice's amount to pay is the service's remainder at every
// step; an invoice document reversed (a debit memo voided, a lowering undone) is a new document dated in the
// open period, never a cancel of the original, also after its month was closed in Tryton.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);

interface InvoiceView {
  id: number;
  type: string;
  state: string;
  total: number;
  toPay: number;
  accountingDate: string | null;
  move: number | null;
  paymentLines: number[];
}

async function invoice(record: RemoteRecord | undefined): Promise<InvoiceView> {
  const id = Number(record?.remoteIds.find((r) => r.startsWith('account.invoice,'))?.split(',')[1]);
  const [row] = await tryton.rpc.model<
    {
      id: number;
      type: string;
      state: string;
      total_amount: TrytonDecimal;
      amount_to_pay: TrytonDecimal;
      accounting_date: unknown;
      move: number | null;
      payment_lines: number[];
    }[]
  >(
    'account.invoice',
    'read',
    [id],
    ['type', 'state', 'total_amount', 'amount_to_pay', 'accounting_date', 'move', 'payment_lines'],
  );
  if (!row) throw new Error(`no invoice ${id}`);
  return {
    id: row.id,
    type: row.type,
    state: row.state,
    total: centsOf(row.total_amount),
    toPay: centsOf(row.amount_to_pay),
    accountingDate: isoDateOf(row.accounting_date),
    move: row.move,
    paymentLines: row.payment_lines,
  };
}

/** A move's lines as a closed period must keep them. */
async function moveLines(id: number | null) {
  const lines = await tryton.rpc.searchRead<{ account: number; debit: TrytonDecimal; credit: TrytonDecimal }>(
    'account.move.line',
    [['move', '=', id]],
    ['account', 'debit', 'credit'],
  );
  return lines.map((l) => ({ account: l.account, debit: centsOf(l.debit), credit: centsOf(l.credit) }));
}

/** A move's lines by account code, debit positive: where a document posted. */
async function postedByCode(id: number | null): Promise<Record<string, number>> {
  const lines = await moveLines(id);
  const codes = await tryton.rpc.model<{ id: number; code: string }[]>(
    'account.account',
    'read',
    [...new Set(lines.map((l) => l.account))],
    ['code'],
  );
  const codeOf = new Map(codes.map((c) => [c.id, c.code]));
  const out: Record<string, number> = {};
  for (const l of lines) {
    const code = codeOf.get(l.account) ?? String(l.account);
    out[code] = (out[code] ?? 0) + l.debit - l.credit;
  }
  return out;
}

async function receivableOf(serviceId: string): Promise<number> {
  const [party] = await tryton.rpc.searchRead<{ receivable: TrytonDecimal }>(
    'party.party',
    [['identifiers.code', '=', `booksync:${serviceId}`]],
    ['receivable'],
  );
  return centsOf(party?.receivable);
}

function pusher() {
  const { pushed, context } = pushIndex();
  return {
    pushed,
    context,
    async push(doc: TargetDocument, target = connect()) {
      const result = await target.push(doc, context);
      pushed.set(doc.key, result);
      return result;
    },
  };
}

/** The reversal of a document, dated `date`, for `reason`; its content hash `h` repeated. */
const reversal = (of: TargetDocument, date: string, reason: string, h: string) =>
  reversalDocument(of, date, reason, h.repeat(64));

/** The scenario's documents, with a lowering, a debit memo and the reversals of both. */
function documents() {
  const docs = closedPeriodDocuments();
  const link = docs.invoice.invoice?.paymentLinkId as string;
  const base = { invoice: docs.invoice.invoice, customer: docs.invoice.customer, reference: link };
  const lowering: TargetDocument = {
    ...base,
    key: `invoice-adjustment:${link}:1`,
    kind: 'invoice-adjustment',
    date: '2026-01-12',
    description: `Payment link ${link} lowered`,
    amountCents: 20_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: -20_00 },
      { role: 'DiscountsAndWriteOffs', amountCents: 20_00 },
    ],
    contentHash: 'g'.repeat(64),
  };
  const memo: TargetDocument = {
    ...base,
    key: `debit-memo:dm_${docs.run}`,
    kind: 'debit-memo',
    date: '2026-01-14',
    description: `Debit memo dm_${docs.run} on payment link ${link}`,
    amountCents: 25_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 25_00 },
      { role: 'FeeIncome', amountCents: -25_00 },
    ],
    contentHash: 'h'.repeat(64),
  };
  return {
    ...docs,
    link,
    lowering,
    memo,
    /** 100.00 of the link's 120.00 invoice paid (January). */
    paid100: {
      ...docs.january,
      amountCents: 100_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 100_00 },
        { role: 'AccountsReceivable', amountCents: -100_00 },
      ],
      settles: { applied: [{ key: docs.invoice.key, amountCents: 100_00 }], unappliedCents: 0 },
    } satisfies TargetDocument,
    /** The link lowered by 50.00, its credit split as the ledger says. */
    lowered50: (settles: TargetDocument['settles']): TargetDocument => ({
      ...lowering,
      amountCents: 50_00,
      lines: [
        { role: 'AccountsReceivable', amountCents: -50_00 },
        { role: 'DiscountsAndWriteOffs', amountCents: 50_00 },
      ],
      settles,
    }),
    memoVoided: reversal(memo, '2026-02-04', 'debit memo voided', 'i'),
    loweringUndone: reversal(lowering, '2026-02-06', 'link amount raised back', 'j'),
  };
}

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

describe('Tryton: credit notes', { timeout: 180_000 }, () => {
  it('a lowered invoice is a credit note applied to it: owed as at the service at every step, both paid once settled', async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    expect((await invoice(pushed.get(docs.invoice.key))).toPay).toBe(120_00);

    // 120.00 lowered by 20.00: the service's remainder is 100.00, and so is the invoice's amount to pay.
    const credited = await push(docs.lowering);
    const note = await invoice(credited);
    expect(note).toMatchObject({ type: 'out', state: 'posted', total: -20_00 });
    // The credit note's line is on the account mapped to Discounts and Write-offs, not on Revenue.
    expect(await postedByCode(note.move)).toEqual({
      [defaultAccountCodes.DiscountsAndWriteOffs]: 20_00,
      [defaultAccountCodes.AccountsReceivable]: -20_00,
    });
    const own = await invoice(pushed.get(docs.invoice.key));
    expect(own.toPay).toBe(100_00);
    expect(own.state).toBe('posted');
    expect(await tryton.amountToPay(docs.link)).toBe(100_00);
    expect(await receivableOf(customer)).toBe(100_00);

    // A part payment, then the rest: the invoice owes what the service says after each.
    await push(docs.january);
    expect((await invoice(pushed.get(docs.invoice.key))).toPay).toBe(50_00);
    expect(await tryton.amountToPay(docs.link)).toBe(50_00);
    await push({
      ...docs.february,
      amountCents: 50_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 50_00 },
        { role: 'AccountsReceivable', amountCents: -50_00 },
      ],
    });
    const settled = await invoice(pushed.get(docs.invoice.key));
    expect(settled).toMatchObject({ state: 'paid', toPay: 0 });
    // The credit note is reconciled with the invoice: Tryton shows it paid too, nothing left on the party.
    expect(await invoice(credited)).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await receivableOf(customer)).toBe(0);

    // Pushed again by a worker that may have made it (a crash after Tryton's create): found, not made twice.
    const again = await connect().push(docs.lowering, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
      closedThrough: null,
    });
    expect(again).toMatchObject({ created: false, remoteIds: credited.remoteIds });
    const notes = await tryton.rpc.model<number[]>(
      'account.invoice',
      'search',
      [['comment', '=', `booksync-link:${docs.link}`]],
      0,
      null,
      null,
    );
    expect(notes).toHaveLength(2);
  });

  it("a lowering below what was paid, spread by the ledger over the link's invoice, its memo and the customer's credit: a credit note each, applied to its document; found again whole; undone as one invoice", async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    await push(docs.memo);
    // 100.00 paid: the link's 120.00 invoice owes 20.00, the 25.00 memo all of it.
    await push(docs.paid100);
    expect((await invoice(pushed.get(docs.invoice.key))).toPay).toBe(20_00);
    // Lowered by 50.00: the service asks 95.00 of the 100.00 received, so nothing is owed and the customer
    // holds 5.00 of credit. The ledger splits the credit as money is split: 20.00 on the invoice, 25.00 on
    // the memo, 5.00 the customer's credit.
    const lowering = docs.lowered50({
      applied: [
        { key: docs.invoice.key, amountCents: 20_00 },
        { key: docs.memo.key, amountCents: 25_00 },
      ],
      unappliedCents: 5_00,
    });
    const credited = await push(lowering);
    const notes = credited.remoteIds.filter((r) => r.startsWith('account.invoice,'));
    expect(notes).toHaveLength(3);
    const parts = await Promise.all(
      notes.map((ref) => invoice({ key: lowering.key, remoteIds: [ref], contentHash: '' })),
    );
    // Each a posted credit note dated the lowering's day, on Discounts and Write-offs; the two applied are
    // paid with their documents, the customer's credit stays on the party.
    expect(parts.map((p) => [p.total, p.state, p.accountingDate])).toEqual([
      [-20_00, 'paid', '2026-01-12'],
      [-25_00, 'paid', '2026-01-12'],
      [-5_00, 'posted', '2026-01-12'],
    ]);
    for (const part of parts) {
      expect(await postedByCode(part.move)).toEqual({
        [defaultAccountCodes.DiscountsAndWriteOffs]: -part.total,
        [defaultAccountCodes.AccountsReceivable]: part.total,
      });
    }
    expect(await invoice(pushed.get(docs.invoice.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await receivableOf(customer)).toBe(-5_00);

    // A worker that may have made it (a crash after Tryton's create) finds all three, makes none again.
    const again = await connect().push(lowering, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
      closedThrough: null,
    });
    expect(again).toMatchObject({ created: false, remoteIds: credited.remoteIds });
    expect(await connect().find(lowering.key)).toMatchObject({ remoteIds: credited.remoteIds });
    expect(await receivableOf(customer)).toBe(-5_00);

    // Undone (the link raised back): one invoice taking back every part's line, owed 50.00 less the 5.00
    // credit the customer holds: the party owes the service's 45.00.
    const undone = await push(reversal(lowering, '2026-02-06', 'link amount raised back', 'n'));
    const raised = await invoice(undone);
    expect(raised).toMatchObject({
      type: 'out',
      state: 'posted',
      total: 50_00,
      accountingDate: '2026-02-06',
    });
    expect(await postedByCode(raised.move)).toEqual({
      [defaultAccountCodes.DiscountsAndWriteOffs]: -50_00,
      [defaultAccountCodes.AccountsReceivable]: 50_00,
    });
    expect(await receivableOf(customer)).toBe(45_00);
  });

  it("a customer credit a later memo takes in part: one move on the receivable, dated the memo's day, splits the credit note's line: the memo paid, the rest open on the party; a push cut short before the move took the credit over is finished, nothing made twice", async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    await push(docs.paid100);
    // Lowered by 50.00 with 20.00 owed: 20.00 on the invoice, 30.00 the customer's credit.
    const lowering = docs.lowered50({
      applied: [{ key: docs.invoice.key, amountCents: 20_00 }],
      unappliedCents: 30_00,
    });
    await push(lowering);
    expect(await receivableOf(customer)).toBe(-30_00);
    // The 25.00 memo takes 25.00 of the customer's 30.00 credit, as the ledger says.
    const memo: TargetDocument = {
      ...docs.memo,
      reapplies: [{ credit: lowering.key, applied: [{ key: docs.memo.key, amountCents: 25_00 }] }],
    };
    await push(memo);
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await receivableOf(customer)).toBe(-5_00);
    const applications = () =>
      tryton.rpc.searchRead<{ id: number; date: unknown; state: string }>(
        'account.move',
        [['description', 'like', `booksync:credit-application:${docs.memo.key}:%`]],
        ['date', 'state'],
      );
    const moves = await applications();
    expect(moves.map((m) => [isoDateOf(m.date), m.state])).toEqual([[docs.memo.date, 'posted']]);
    const [move] = moves;
    // All on the receivable with the customer: no account's balance moves.
    expect(await postedByCode(move?.id ?? null)).toEqual({ [defaultAccountCodes.AccountsReceivable]: 0 });
    expect(
      (await moveLines(move?.id ?? null))
        .map((l) => [l.debit, l.credit])
        .sort((a, b) => (b[0] ?? 0) - (a[0] ?? 0) || (b[1] ?? 0) - (a[1] ?? 0)),
    ).toEqual([
      [30_00, 0],
      [0, 25_00],
      [0, 5_00],
    ]);

    // The debit takes the credit note's line over (reconciled with it). Cut short before that (here: undone),
    // a push again finishes it.
    const debitLine = async () =>
      (
        await tryton.rpc.searchRead<{ id: number; reconciliation: number | null }>(
          'account.move.line',
          [
            ['move', '=', move?.id ?? 0],
            ['debit', '>', 0],
          ],
          ['reconciliation'],
        )
      )[0];
    expect((await debitLine())?.reconciliation).not.toBeNull();
    await tryton.rpc.wizard('account.move.unreconcile_lines', 'unreconcile', {}, 'account.move.line', [
      (await debitLine())?.id ?? 0,
    ]);
    expect((await debitLine())?.reconciliation).toBeNull();

    // Pushed again by a worker that may have made it: found, nothing made twice, nothing applied twice.
    await connect().push(memo, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
      closedThrough: null,
    });
    expect((await applications()).map((m) => m.id)).toEqual([move?.id]);
    expect((await debitLine())?.reconciliation).not.toBeNull();
    expect(await receivableOf(customer)).toBe(-5_00);
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
  });

  it('a receivable written off (Dr Bad Debt) is a move on the Bad Debt expense account paying the invoice, not a credit note; a discount of the same lowering a credit note beside it; found again, reversed as a move', async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    const writtenOff: TargetDocument = {
      ...docs.lowering,
      description: `Payment link ${docs.link}: 2000 cents written off as bad debt`,
      lines: [
        { role: 'AccountsReceivable', amountCents: -20_00 },
        { role: 'BadDebt', amountCents: 20_00 },
      ],
    };
    const record = await push(writtenOff);
    expect(record.remoteIds).toHaveLength(1);
    expect(record.remoteIds[0]).toMatch(/^account\.move,/);
    const moveId = Number(record.remoteIds[0]?.split(',')[1]);
    expect(await postedByCode(moveId)).toEqual({
      [defaultAccountCodes.BadDebt]: 20_00,
      [defaultAccountCodes.AccountsReceivable]: -20_00,
    });
    expect((await invoice(pushed.get(docs.invoice.key))).toPay).toBe(100_00);
    expect(await tryton.amountToPay(docs.link)).toBe(100_00);
    expect(await receivableOf(customer)).toBe(100_00);
    // The same lowering's discounted rest, the ledger's next adjustment: a credit note of its own, applied.
    await push({
      ...docs.lowering,
      key: docs.lowering.key.replace(/:1$/, ':2'),
      amountCents: 10_00,
      lines: [
        { role: 'DiscountsAndWriteOffs', amountCents: 10_00 },
        { role: 'AccountsReceivable', amountCents: -10_00 },
      ],
      contentHash: 'm'.repeat(64),
    });
    expect(await tryton.amountToPay(docs.link)).toBe(90_00);
    expect(await receivableOf(customer)).toBe(90_00);
    // A restarted worker that has no index finds it by its key, as a move; nothing made twice.
    const again = await connect().push(writtenOff, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: (key) => pushed.get(key) ?? null,
    });
    expect(again).toMatchObject({ created: false, remoteIds: record.remoteIds });
    // Undone (the link raised back): reversed as a move, the invoice owed in full again.
    const undone = reversal(writtenOff, '2026-01-20', 'link amount raised back', 'k');
    await push(undone);
    expect(await tryton.amountToPay(docs.link)).toBe(110_00);
    expect(await receivableOf(customer)).toBe(110_00);
  });

  it("after January is closed in Tryton: a voided January memo is a February credit note applied to it, a January lowering undone is a February invoice; January's moves unchanged", async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    await push(docs.lowering);
    await push(docs.memo);
    const memo = await invoice(pushed.get(docs.memo.key));
    expect(memo.toPay).toBe(25_00);
    expect(await receivableOf(customer)).toBe(125_00);
    const january = {
      invoice: await moveLines((await invoice(pushed.get(docs.invoice.key))).move),
      lowering: await moveLines((await invoice(pushed.get(docs.lowering.key))).move),
      memo: await moveLines(memo.move),
    };
    await tryton.setPeriodState('2026-01-15', 'close');

    // The memo voided in February: a credit note dated in February, applied to the memo, which is settled.
    const voided = await push(docs.memoVoided);
    const note = await invoice(voided);
    expect(note).toMatchObject({ type: 'out', state: 'paid', total: -25_00, accountingDate: '2026-02-04' });
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
    const [credited] = await tryton.rpc.model<{ lines: number[] }[]>(
      'account.invoice',
      'read',
      [note.id],
      ['lines'],
    );
    const [line] = await tryton.rpc.model<{ origin: string | null }[]>(
      'account.invoice.line',
      'read',
      credited?.lines ?? [],
      ['origin'],
    );
    expect(line?.origin).toMatch(/^account\.invoice\.line,\d+$/);
    expect(await receivableOf(customer)).toBe(100_00);

    // The lowering undone in February: the customer owes the 20.00 again, on an invoice dated February.
    const undone = await push(docs.loweringUndone);
    expect(await invoice(undone)).toMatchObject({
      type: 'out',
      state: 'posted',
      total: 20_00,
      toPay: 20_00,
      accountingDate: '2026-02-06',
    });
    // Taken back off the account the lowering was on.
    expect(await postedByCode((await invoice(undone)).move)).toEqual({
      [defaultAccountCodes.DiscountsAndWriteOffs]: -20_00,
      [defaultAccountCodes.AccountsReceivable]: 20_00,
    });
    expect((await invoice(pushed.get(docs.invoice.key))).toPay).toBe(100_00);
    expect(await receivableOf(customer)).toBe(120_00);
    expect(await tryton.amountToPay(docs.link)).toBe(120_00);

    // January in Tryton is as it was: the same moves, the same lines.
    expect(await moveLines((await invoice(pushed.get(docs.invoice.key))).move)).toEqual(january.invoice);
    expect(await moveLines((await invoice(pushed.get(docs.lowering.key))).move)).toEqual(january.lowering);
    expect(await moveLines(memo.move)).toEqual(january.memo);
  });

  it('money that pays the link and its memo settles both, oldest first; money beyond what is owed is the customer credit', async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    const customer = docs.invoice.customer!.serviceId;
    await push(docs.invoice);
    await push(docs.memo);
    const paid = (cents: number, id: string, settles: TargetDocument['settles']): TargetDocument => ({
      ...docs.february,
      key: `payment:${id}_${docs.run}`,
      amountCents: cents,
      lines: [
        { role: 'ProcessorClearing', amountCents: cents },
        { role: 'AccountsReceivable', amountCents: -cents },
      ],
      settles,
    });
    // 120.00 and its 25.00 memo paid with 145.00: both documents are paid (Tryton refuses payment lines over
    // an invoice's amount, so the whole on the invoice was refused).
    await push(
      paid(145_00, 'both', {
        applied: [
          { key: docs.invoice.key, amountCents: 120_00 },
          { key: docs.memo.key, amountCents: 25_00 },
        ],
        unappliedCents: 0,
      }),
    );
    expect(await invoice(pushed.get(docs.invoice.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await receivableOf(customer)).toBe(0);

    // 10.00 more than anything owed: on the party, on no invoice (the customer's credit).
    await push(paid(10_00, 'over', { applied: [], unappliedCents: 10_00 }));
    expect(await receivableOf(customer)).toBe(-10_00);
    expect(await tryton.amountToPay(docs.link)).toBe(0);
  });

  it("money that pays the link and its memo settles the memo too when the push knows only the link's invoice (the worker's index)", async () => {
    const docs = documents();
    const { pushed, push } = pusher();
    await push(docs.invoice);
    await push(docs.memo);
    // The worker's push context holds the link's own invoice only (src/flows/push/activities.ts
    // earlierKeys); the memo's invoice is Tryton's to find (case 3 through `booksync start`).
    const { context } = pushIndex();
    const own = pushed.get(docs.invoice.key);
    const worker = { ...context, pushed: (key: string) => (key === docs.invoice.key ? (own ?? null) : null) };
    await connect().push(
      {
        ...docs.february,
        key: `payment:both-known-${docs.run}`,
        amountCents: 145_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 145_00 },
          { role: 'AccountsReceivable', amountCents: -145_00 },
        ],
        settles: {
          applied: [
            { key: docs.invoice.key, amountCents: 120_00 },
            { key: docs.memo.key, amountCents: 25_00 },
          ],
          unappliedCents: 0,
        },
      },
      worker,
    );
    expect(await invoice(pushed.get(docs.memo.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await invoice(pushed.get(docs.invoice.key))).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await tryton.amountToPay(docs.link)).toBe(0);
  });
});

describe('Tryton: customer invoices issued in date order (the combination suite)', {
  timeout: 180_000,
}, () => {
  it('an invoice dated before the last one Tryton numbered is issued after it, its accounting date its own; a fresh worker reads the last issue date', async () => {
    const later = documents();
    const earlier = documents();
    const { pushed, push } = pusher();
    // Issued on 20 December (its own date, after today), then one dated 10 March arrives (January is closed
    // in this file's Tryton by now).
    await push({ ...later.invoice, date: '2026-12-20' });
    await push({ ...earlier.invoice, date: '2026-03-10' });
    const first = await invoice(pushed.get(later.invoice.key));
    const second = await invoice(pushed.get(earlier.invoice.key));
    expect([first.state, second.state]).toEqual(['posted', 'posted']);
    expect(second.accountingDate).toBe('2026-03-10');
    const issued = async (view: InvoiceView) =>
      isoDateOf(
        (
          await tryton.rpc.model<{ invoice_date: unknown }[]>(
            'account.invoice',
            'read',
            [view.id],
            ['invoice_date'],
          )
        )[0]?.invoice_date,
      );
    expect(await issued(second)).toBe('2026-12-20');
    // Another worker (nothing remembered): the last issue date is read from Tryton.
    const third = documents();
    const fresh = await connect().push(third.invoice, {
      mayExist: () => false,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: null,
    });
    const made = await invoice(fresh);
    expect(made.state).toBe('posted');
    expect(await issued(made)).toBe('2026-12-20');
  });
});
