import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { centsOf, isoDateOf, type TrytonDecimal } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { closedPeriodDocuments, lockedThrough } from '../closed-period-documents.js';

// A payment returned after its month is closed, against a real Tryton 8.2 on PostgreSQL with its task queue's
// worker (test/support/tryton.ts): the invoice was issued and paid in January, so Tryton reconciled it in
// January; January is closed through Tryton's API; the payment comes back in February. Tryton must show the
// invoice owed the returned amount (its state posted, its amount to pay the service's remainder), January's
// moves and reconciliation as closed, the party's receivable and Tryton's figures right, and a push again
// must make nothing twice.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);
const idOf = (remoteId: string | undefined) => Number(String(remoteId).split(',')[1]);
const refOf = (record: RemoteRecord | undefined, model: string) =>
  idOf(record?.remoteIds.find((r) => r.startsWith(`${model},`)));

interface LineRow {
  id: number;
  account: number;
  party: number | null;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  reconciliation: number | null;
}

/** What a closed period must keep of a move: its date, state, period and each line's amounts and reconciliation. */
async function closedView(moveId: number) {
  const [move] = await tryton.rpc.model<{ date: unknown; state: string; period: number; lines: number[] }[]>(
    'account.move',
    'read',
    [moveId],
    ['date', 'state', 'period', 'lines'],
  );
  const lines = await tryton.rpc.model<LineRow[]>('account.move.line', 'read', move?.lines ?? [], [
    'account',
    'party',
    'debit',
    'credit',
    'reconciliation',
  ]);
  return {
    date: isoDateOf(move?.date),
    state: move?.state,
    period: move?.period,
    lines: lines
      .map((l) => ({
        id: l.id,
        account: l.account,
        party: l.party,
        debit: centsOf(l.debit),
        credit: centsOf(l.credit),
        reconciliation: l.reconciliation,
      }))
      .sort((a, b) => a.id - b.id),
  };
}

/** The invoice as Tryton shows it: its state, its own amount to pay, its payment lines and additional moves. */
async function invoiceView(id: number) {
  const [row] = await tryton.rpc.model<
    {
      state: string;
      amount_to_pay: TrytonDecimal;
      payment_lines: number[];
      additional_moves: number[];
      lines_to_pay: number[];
    }[]
  >(
    'account.invoice',
    'read',
    [id],
    ['state', 'amount_to_pay', 'payment_lines', 'additional_moves', 'lines_to_pay'],
  );
  return {
    state: row?.state,
    toPay: centsOf(row?.amount_to_pay),
    paymentLines: row?.payment_lines,
    additionalMoves: row?.additional_moves,
    linesToPay: row?.lines_to_pay,
  };
}

async function partyReceivable(serviceId: string): Promise<number> {
  const [party] = await tryton.rpc.searchRead<{ receivable: TrytonDecimal }>(
    'party.party',
    [['identifiers.code', '=', `booksync:${serviceId}`]],
    ['receivable'],
  );
  return centsOf(party?.receivable);
}

const invoicesOfLink = (link: string) =>
  tryton.rpc.model<number[]>(
    'account.invoice',
    'search',
    [['comment', '=', `booksync-link:${link}`]],
    0,
    null,
    null,
  );

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Tryton: a payment returned after its month is closed', { timeout: 180_000 }, () => {
  it('the invoice it paid is owed the returned amount again, January untouched; a push again makes nothing twice', async () => {
    const docs = closedPeriodDocuments();
    const { pushed, context } = pushIndex({ mayExist: true });
    const push = async (doc: TargetDocument) => {
      const result = await connect().push(doc, context);
      pushed.set(doc.key, result);
      return result;
    };
    const link = docs.invoice.invoice?.paymentLinkId as string;
    const customer = docs.invoice.customer?.serviceId as string;
    const paid: TargetDocument = {
      ...docs.january,
      amountCents: 120_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 120_00 },
        { role: 'AccountsReceivable', amountCents: -120_00 },
      ],
    };
    const returned: TargetDocument = {
      ...docs.januaryReversed,
      amountCents: 120_00,
      description: `Reversal of ${paid.key}: ACH return R01`,
      lines: paid.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      reason: 'ACH return R01',
    };

    // Pushed in January as the worker pushes live: the invoice issued January 10 (booksync issues a customer
    // invoice the day it pushes it), paid in full January 15, so Tryton reconciles it in January.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-15T12:00:00Z') });
    await push(docs.invoice);
    await push(paid);
    vi.useRealTimers();
    const invoiceId = refOf(pushed.get(docs.invoice.key), 'account.invoice');
    const invoiceMove = refOf(pushed.get(docs.invoice.key), 'account.move');
    const paymentMove = refOf(pushed.get(paid.key), 'account.move');
    expect(await invoiceView(invoiceId)).toMatchObject({ state: 'paid', toPay: 0 });
    const january = { invoice: await closedView(invoiceMove), payment: await closedView(paymentMove) };
    const reconciliationId = january.payment.lines.find((l) => l.party !== null)?.reconciliation;
    expect(reconciliationId).toEqual(expect.any(Number));
    const [reconciliation] = await tryton.rpc.model<{ date: unknown; lines: number[] }[]>(
      'account.move.reconciliation',
      'read',
      [reconciliationId],
      ['date', 'lines'],
    );
    // The case at hand: the payment's reconciliation with the invoice belongs to the month about to close.
    expect(isoDateOf(reconciliation?.date)! <= lockedThrough).toBe(true);

    await tryton.setPeriodState('2026-01-15', 'close');
    expect(await connect().lockedThrough()).toBe(lockedThrough);

    const reversed = await push(returned);
    const reversalMove = refOf(reversed, 'account.move');

    // The invoice is owed the returned 120.00 again in Tryton: posted, its own amount to pay the service's
    // remainder, the reversal among its additional moves (its open receivable line one of its lines to pay).
    const owed = await invoiceView(invoiceId);
    expect(owed).toMatchObject({ state: 'posted', toPay: 120_00, additionalMoves: [reversalMove] });
    const reversalLines = await tryton.rpc.searchRead<LineRow>(
      'account.move.line',
      [
        ['move', '=', reversalMove],
        ['party', '!=', null],
      ],
      ['debit', 'credit', 'reconciliation'],
    );
    expect(reversalLines.map((l) => [centsOf(l.debit), centsOf(l.credit), l.reconciliation])).toEqual([
      [120_00, 0, null],
    ]);
    expect(owed.linesToPay).toContain(reversalLines[0]?.id);
    // No new sale: the link still has its one invoice.
    expect(await invoicesOfLink(link)).toEqual([invoiceId]);
    // January as it was closed: its moves, and the reconciliation of the payment with the invoice.
    expect(await closedView(invoiceMove)).toEqual(january.invoice);
    expect(await closedView(paymentMove)).toEqual(january.payment);
    const [kept] = await tryton.rpc.model<{ date: unknown; lines: number[] }[]>(
      'account.move.reconciliation',
      'read',
      [reconciliationId],
      ['date', 'lines'],
    );
    expect(kept).toMatchObject({ lines: reconciliation?.lines });
    // The party owes the 120.00; Tryton's figures: nothing open on January 31, 120.00 on February 28.
    expect(await partyReceivable(customer)).toBe(120_00);
    expect((await connect().figuresAsOf('2026-01-31')).openInvoices[link]).toBeUndefined();
    expect((await connect().figuresAsOf('2026-02-28')).openInvoices[link]).toBe(120_00);

    // A push again, from a restarted worker (no index): found by its marker, nothing made or attached twice.
    const again = await connect().push(returned, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
    });
    expect(again).toMatchObject({ created: false, remoteIds: reversed.remoteIds });
    expect(
      await tryton.rpc.model<number[]>(
        'account.move',
        'search',
        [['origin', '=', `account.move,${paymentMove}`]],
        0,
        null,
        null,
      ),
    ).toEqual([reversalMove]);
    expect(await invoiceView(invoiceId)).toEqual(owed);
    expect(await partyReceivable(customer)).toBe(120_00);

    // Paid again in February: the reopened invoice takes the payment and is paid, the reversal's line
    // reconciled with it.
    const repaid = await push({
      ...paid,
      key: `payment:again_${docs.run}`,
      date: '2026-02-10',
      description: `Payment again_${docs.run} received`,
      contentHash: '9'.repeat(64),
      reference: `again_${docs.run}`,
    });
    expect(await invoiceView(invoiceId)).toMatchObject({ state: 'paid', toPay: 0 });
    expect(await partyReceivable(customer)).toBe(0);
    expect(repaid.created).toBe(true);
    expect(await closedView(paymentMove)).toEqual(january.payment);
  });
});
