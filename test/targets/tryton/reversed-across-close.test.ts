import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { centsOf, type TrytonDecimal } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { lockedThrough, reversedAcrossCloseDocuments } from '../reversed-across-close-documents.js';

// Against a real Tryton 8.2 (test/support/tryton.ts): a payment of a closed month returned after the close
// is owed again on the link's invoice (the reversal one of its additional moves, owed-again.ts), not on a
// document of its own as at QuickBooks and Xero. The ledger's split of money and lowerings after it names
// the reversal's own document and what it reopens: Tryton applies them to that invoice, so the link's
// invoices owe the service's remainder. A payment of the invoice and its memo is reversed in parts, one move
// per invoice (reversal-parts.ts), and money after it is spread over both.

let tryton: TrytonServer;
const { pushed, context } = pushIndex({ mayExist: true });
const push = async (doc: TargetDocument) => {
  const result = await trytonTarget(tryton).push(doc, context);
  pushed.set(doc.key, result);
  return result;
};
const paid = reversedAcrossCloseDocuments();
const lowered = reversedAcrossCloseDocuments();
const whole = reversedAcrossCloseDocuments({ withMemo: true });
const inTwo = reversedAcrossCloseDocuments({ withMemo: true });
/** The Tryton invoices of each scenario with a memo: the link's, then the memo's. */
const invoices = new Map<typeof whole, number[]>();
const idOf = (result: { remoteIds: string[] }) =>
  Number(result.remoteIds.find((r) => r.startsWith('account.invoice,'))?.split(',')[1]);

beforeAll(async () => {
  tryton = await startTryton();
  // Pushed in January as the worker pushes live, so Tryton reconciles each payment with its invoices then;
  // then January is closed.
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-15T12:00:00Z') });
  for (const docs of [paid, lowered]) {
    await push(await docs.invoice());
    await push(await docs.payment());
  }
  for (const docs of [whole, inTwo]) {
    invoices.set(docs, [idOf(await push(await docs.invoice())), idOf(await push(await docs.memo()))]);
    await push(await docs.payment());
  }
  vi.useRealTimers();
  await tryton.setPeriodState('2026-01-15', 'close');
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Each invoice's state and amount to pay, the link's invoice first. */
async function owed(ids: number[]): Promise<string[]> {
  const rows = await tryton.rpc.model<{ id: number; state: string; amount_to_pay: TrytonDecimal }[]>(
    'account.invoice',
    'read',
    ids,
    ['state', 'amount_to_pay'],
  );
  return rows.sort((a, b) => a.id - b.id).map((r) => `${r.state} ${centsOf(r.amount_to_pay)}`);
}

describe('Tryton: money on a link after its closed month’s payment was returned', {
  timeout: 180_000,
}, () => {
  it('an external payment, or a lowering, after the return: the link’s invoice owes the service’s remainder', async () => {
    expect(await trytonTarget(tryton).lockedThrough()).toBe(lockedThrough);
    const linkOf = (doc: TargetDocument) => doc.invoice?.paymentLinkId as string;
    for (const docs of [paid, lowered]) await push(await docs.returned());
    const invoice = await paid.invoice();
    expect(await tryton.amountToPay(linkOf(invoice))).toBe(120_00);

    const external = await paid.external();
    expect(external.settles?.applied).toEqual([
      { key: `reversal:payment:py_${paid.run}`, reopens: invoice.key, amountCents: 60_00 },
    ]);
    await push(external);
    expect(await tryton.amountToPay(linkOf(invoice))).toBe(60_00);

    await push(await lowered.lowered());
    expect(await tryton.amountToPay(linkOf(await lowered.invoice()))).toBe(50_00);
  });

  it('a payment of the invoice and its memo returned after the close: reversed per invoice, each owed again, later money pays both', async () => {
    const ids = invoices.get(whole) as number[];
    expect(await owed(ids)).toEqual(['paid 0', 'paid 0']);
    const returned = await push(await whole.returned());
    // One reversing move per invoice the payment paid, each one of that invoice's additional moves.
    expect(returned.remoteIds).toHaveLength(2);
    expect(await owed(ids)).toEqual(['posted 12000', 'posted 3000']);
    const additional = await tryton.rpc.model<{ additional_moves: number[] }[]>(
      'account.invoice',
      'read',
      ids,
      ['additional_moves'],
    );
    expect(additional.flatMap((i) => i.additional_moves).sort()).toEqual(
      returned.remoteIds.map((r) => Number(r.split(',')[1])).sort(),
    );
    expect(await tryton.amountToPay(`pl_${whole.run}`)).toBe(150_00);

    // Pushed again (a retry after a crash): found, nothing made twice.
    expect((await push(await whole.returned())).remoteIds).toEqual(returned.remoteIds);
    expect(await owed(ids)).toEqual(['posted 12000', 'posted 3000']);

    // 150.00 received outside the service, the ledger applying it to the return: both paid.
    await push(await whole.externalWhole());
    expect(await owed(ids)).toEqual(['paid 0', 'paid 0']);
  });

  it('the same paid again in two goes: 60.00 on the link’s invoice, then 90.00 across both', async () => {
    const ids = invoices.get(inTwo) as number[];
    await push(await inTwo.returned());
    await push(await inTwo.external());
    expect(await owed(ids)).toEqual(['posted 6000', 'posted 3000']);
    await push(await inTwo.externalRest());
    expect(await owed(ids)).toEqual(['paid 0', 'paid 0']);
    expect(await tryton.amountToPay(`pl_${inTwo.run}`)).toBe(0);
  });

  it('a payment of both pushed after January closed (dated in the open month) and returned: its reconciliation undone, both owed again, later money pays both', async () => {
    const late = reversedAcrossCloseDocuments({ withMemo: true });
    const ids = [idOf(await push(await late.invoice())), idOf(await push(await late.memo()))];
    await push(await late.payment());
    expect(await owed(ids)).toEqual(['paid 0', 'paid 0']);
    const returned = await push(await late.returned());
    expect(returned.remoteIds).toHaveLength(1);
    expect(await owed(ids)).toEqual(['posted 12000', 'posted 3000']);
    // The returned payment no longer counts among the invoices' payments: Tryton takes the next one.
    await push(await late.external());
    expect(await owed(ids)).toEqual(['posted 6000', 'posted 3000']);
    await push(await late.externalRest());
    expect(await owed(ids)).toEqual(['paid 0', 'paid 0']);
  });
});
