import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TargetDocument } from '../../../src/targets/target-port.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { lockedThrough, reversedAcrossCloseDocuments } from '../reversed-across-close-documents.js';

// Against a real Tryton 8.2 (test/support/tryton.ts): a payment of a closed month returned after the close
// is owed again on the link's invoice (the reversal one of its additional moves, owed-again.ts), not on a
// document of its own as at QuickBooks and Xero. The ledger's split of money and lowerings after it names
// the reversal's own document and what it reopens: Tryton applies them to that invoice, so the link's
// invoices owe the service's remainder.

let tryton: TrytonServer;

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Tryton: money on a link after its closed month’s payment was returned', {
  timeout: 180_000,
}, () => {
  it('an external payment, or a lowering, after the return: the link’s invoice owes the service’s remainder', async () => {
    const { pushed, context } = pushIndex({ mayExist: true });
    const push = async (doc: TargetDocument) => {
      const result = await trytonTarget(tryton).push(doc, context);
      pushed.set(doc.key, result);
      return result;
    };
    const paid = reversedAcrossCloseDocuments();
    const lowered = reversedAcrossCloseDocuments();
    const linkOf = (doc: TargetDocument) => doc.invoice?.paymentLinkId as string;
    // Pushed in January as the worker pushes live, so Tryton reconciles each payment with its invoice then.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-15T12:00:00Z') });
    for (const docs of [paid, lowered]) {
      await push(await docs.invoice());
      await push(await docs.payment());
    }
    vi.useRealTimers();
    await tryton.setPeriodState('2026-01-15', 'close');
    expect(await trytonTarget(tryton).lockedThrough()).toBe(lockedThrough);
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
});
