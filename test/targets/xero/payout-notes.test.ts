import { IDEMPOTENCY_WINDOW_MS, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../../src/targets/errors.js';
import { marker } from '../../../src/targets/markers.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PayoutReceipt, TargetDocument } from '../../../src/targets/target-port.js';
import {
  NOTE_LIMIT,
  payoutNotes,
  receiptsInNotes,
  reversalNote,
  reversalsInNotes,
} from '../../../src/targets/xero/payout-notes.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { payoutDay } from '../payout-documents.js';

// In Xero: a payout is a BankTransfer out of the Processor Clearing bank account, and its
// History & Notes list the receipts it carries (each by its ledger key, which the Payment's Reference carries),
// so "which payments are in this payout?" is answered from Xero alone; a push again adds no note twice.

// The double's clock, moved past Xero's Idempotency-Key window where a test needs a push again to be new.
let ahead = 0;
const double = doubleForFile(
  new XeroDouble({
    limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 },
    now: () => Date.now() + ahead,
  }),
  { calm: true },
);
const cipher = new TokenCipher('test-secret-for-xero-payout-notes');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
type Doc = Record<string, unknown>;

const organisation = () => xeroOrganisation(double, cipher, { lockTtlMs: 0 });

/**
 * What Xero alone says a payout carries: the notes of the one transfer holding the payout's key, each listed
 * receipt resolved to the live Payments whose Reference carries its key.
 */
function paymentsInPayout(
  tenantId: string,
  payoutKey: string,
): { receipts: PayoutReceipt[]; payments: Doc[] } {
  const transfers = double
    .all(tenantId, 'BankTransfers')
    .filter((t) => String(t.Reference ?? '').startsWith(marker(payoutKey, '')));
  expect(transfers).toHaveLength(1);
  const receipts = receiptsInNotes(double.notesOf(tenantId, String(transfers[0]?.BankTransferID)));
  const payments = double
    .all(tenantId, 'Payments')
    .filter((p) => p.Status !== 'DELETED')
    .filter((p) => receipts.some((r) => String(p.Reference ?? '').startsWith(marker(r.key, ''))));
  return { receipts, payments };
}

/** The reversal of a receipt the payout carries, as documents.ts builds it (its `carriedBy`). */
function reversalOf(receipt: TargetDocument, payoutKey: string, date: string): TargetDocument {
  const paymentId = String(receipt.reference);
  return {
    ...receipt,
    key: `reversal:${receipt.key}`,
    kind: 'reversal',
    date,
    description: `Reversal of ${receipt.key}: payment ${paymentId} is FAILED`,
    lines: receipt.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: '9'.repeat(64),
    reverses: receipt.key,
    reason: `Reversal of ${receipt.key}: payment ${paymentId} is FAILED`,
    originalDate: receipt.date,
    carriedBy: payoutKey,
  };
}

/**
 * What the payout's transfer says of each receipt it lists, from Xero alone: standing, or reversed since
 * (by which reversal), beside whether Xero still holds a live Payment of it.
 */
function standing(tenantId: string, payoutKey: string) {
  const transfer = double
    .all(tenantId, 'BankTransfers')
    .find((t) => String(t.Reference ?? '').startsWith(marker(payoutKey, '')));
  const notes = double.notesOf(tenantId, String(transfer?.BankTransferID));
  const reversals = reversalsInNotes(notes);
  const live = double.all(tenantId, 'Payments').filter((p) => p.Status !== 'DELETED');
  return receiptsInNotes(notes).map((r) => ({
    key: r.key,
    reversedBy: reversals.find((x) => x.key === r.key)?.by ?? null,
    livePayment: live.some((p) => String(p.Reference ?? '').startsWith(marker(r.key, ''))),
  }));
}

describe('Xero: which payments a payout carries', () => {
  it('notes the payout’s receipts on its transfer: exactly the first payment, read from Xero alone', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = org.target();
    for (const doc of [day.invoice, day.p1, day.p2, day.fee, day.payout])
      pushed.set(doc.key, await target.push(doc, context));

    const { receipts, payments } = paymentsInPayout(org.tenantId, day.payout.key);
    expect(receipts).toEqual([{ key: day.p1.key, date: day.p1.date, amountCents: 50_00 }]);
    expect(payments.map((p) => p.PaymentID)).toEqual([idOf(pushed.get(day.p1.key)?.remoteIds[0])]);
    expect(payments.map((p) => p.Amount)).toEqual([50]);
    // The transfer is the payout net of the fee; the second payment stays in Processor Clearing.
    const transfer = double.get(
      org.tenantId,
      'BankTransfers',
      idOf(pushed.get(day.payout.key)?.remoteIds[0]),
    );
    expect(transfer?.Amount).toBe(48.25);
    expect(double.balanceOf(org.tenantId, defaultAccountCodes.ProcessorClearing)).toBe(30_00);
  });

  it('a restarted worker pushing again creates no transfer and no note twice, and adds a note a crash left out', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = org.target();
    for (const doc of [day.invoice, day.p1, day.p2, day.fee])
      pushed.set(doc.key, await target.push(doc, context));
    // A crash between the transfer's create and its notes: the transfer is there, no note yet.
    const { payout: _carried, ...bare } = day.payout;
    const first = await target.push(bare as TargetDocument, context);
    const transferId = idOf(first.remoteIds[0]);
    expect(double.notesOf(org.tenantId, transferId)).toEqual([]);

    const restarted = { mayExist: () => true, refusals: () => 0, pushed: () => null, closedThrough: null };
    const again = await org.target().push(day.payout, restarted);
    expect(again.created).toBe(false);
    expect(again.remoteIds).toEqual(first.remoteIds);
    expect(double.notesOf(org.tenantId, transferId)).toEqual(payoutNotes(day.payout.payout?.receipts ?? []));
    const once = await org.target().push(day.payout, restarted);
    expect(once.created).toBe(false);
    expect(double.all(org.tenantId, 'BankTransfers')).toHaveLength(1);
    expect(double.notesOf(org.tenantId, transferId)).toHaveLength(1);
    expect(paymentsInPayout(org.tenantId, day.payout.key).payments.map((p) => p.PaymentID)).toEqual([
      idOf(pushed.get(day.p1.key)?.remoteIds[0]),
    ]);
  });

  it('a backlog pushed in batches notes the payout as one by one does', async () => {
    const org = organisation();
    const day = payoutDay();
    const { context } = pushIndex();
    const outcomes = await org.target().pushMany([day.invoice, day.p1, day.p2, day.fee, day.payout], context);
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    const { receipts, payments } = paymentsInPayout(org.tenantId, day.payout.key);
    expect(receipts.map((r) => r.key)).toEqual([day.p1.key]);
    expect(payments).toHaveLength(1);
    expect(payments[0]?.Reference).toMatch(new RegExp(`^booksync key=${day.p1.key} `));
  });

  it('a payout of many receipts is split into notes within Xero’s 250 characters, read back whole', async () => {
    const receipts = Array.from({ length: 40 }, (_, i) => ({
      key: `payment:py_${'x'.repeat(24)}${i}`,
      date: '2026-11-03',
      amountCents: 1_000 * (i + 1) + i,
    }));
    const notes = payoutNotes(receipts);
    expect(notes.length).toBeGreaterThan(1);
    for (const note of notes) expect(note.length).toBeLessThanOrEqual(NOTE_LIMIT);
    expect(receiptsInNotes([...notes].reverse())).toEqual(receipts);
    expect(payoutNotes([])).toEqual([]);
  });

  it('Xero refuses a note longer than 250 characters, as the double holds it', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = org.target();
    for (const doc of [day.invoice, day.p1, day.fee, day.payout])
      pushed.set(doc.key, await target.push(doc, context));
    const transferId = idOf(pushed.get(day.payout.key)?.remoteIds[0]);
    const note = (details: string) =>
      target.client.call('createBankTransferHistoryRecord', (api, t) =>
        api.createBankTransferHistoryRecord(
          t,
          transferId,
          { historyRecords: [{ details }] },
          `k-${details.length}`,
        ),
      );
    await expect(note('x'.repeat(251))).rejects.toThrow(TargetRefusedError);
    await expect(note('x'.repeat(250))).resolves.toBeDefined();
    expect(double.notesOf(org.tenantId, transferId)).toHaveLength(2);
  });

  it('a payment the payout carried, returned since: the transfer notes it reversed and by what, once', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = org.target();
    for (const doc of [day.invoice, day.p1, day.p2, day.fee, day.payout])
      pushed.set(doc.key, await target.push(doc, context));
    expect(standing(org.tenantId, day.payout.key)).toEqual([
      { key: day.p1.key, reversedBy: null, livePayment: true },
    ]);

    const returned = reversalOf(day.p1, day.payout.key, '2026-11-20');
    await target.push(returned, context);
    expect(standing(org.tenantId, day.payout.key)).toEqual([
      { key: day.p1.key, reversedBy: returned.key, livePayment: false },
    ]);
    const transferId = idOf(pushed.get(day.payout.key)?.remoteIds[0]);
    expect(reversalsInNotes(double.notesOf(org.tenantId, transferId))).toEqual([
      {
        key: day.p1.key,
        by: returned.key,
        date: '2026-11-20',
        reason: `payment ${day.p1.reference} is FAILED`,
      },
    ]);
    // A restarted worker pushing the reversal again, past Xero's replay of the first answer, finds it done
    // and adds no second note.
    ahead += IDEMPOTENCY_WINDOW_MS + 60_000;
    const restarted = { mayExist: () => true, refusals: () => 0, pushed: () => null, closedThrough: null };
    expect(await org.target().push(returned, restarted)).toMatchObject({ created: false });
    expect(double.notesOf(org.tenantId, transferId)).toHaveLength(2);
  });

  it('returned after the payout’s month is locked: noted only once the reversing documents are in Xero', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    for (const doc of [day.invoice, day.p1, day.fee, day.payout])
      pushed.set(doc.key, await org.target().push(doc, context));
    double.lockDates(org.tenantId, { period: '2026-11-30' });
    const returned = reversalOf(day.p1, day.payout.key, '2026-12-03');
    // Xero refuses the reversing documents: no note claims the payment reversed.
    double.refuseNext('A transient refusal');
    await expect(org.target().push(returned, context)).rejects.toThrow(/A transient refusal/);
    expect(standing(org.tenantId, day.payout.key)).toEqual([
      { key: day.p1.key, reversedBy: null, livePayment: true },
    ]);
    // Retried as the push retries a refused document (its refusal counted, so a request of its own).
    const result = await org.target().push(returned, { ...context, refusals: () => 1 });
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
      expect.stringMatching(/^BankTransaction:/),
    ]);
    // November's payment stands in Xero, reversed by December's documents: the note names the reversal's key,
    // which those documents carry in their Reference.
    expect(standing(org.tenantId, day.payout.key)).toEqual([
      { key: day.p1.key, reversedBy: returned.key, livePayment: true },
    ]);
    const spend = double.get(org.tenantId, 'BankTransactions', idOf(result.remoteIds[1]));
    expect(String(spend?.Reference)).toContain(`booksync key=${returned.key} `);
  });

  it('a backlog in batches notes the payout, then the reversal of its payment, in the slice’s order', async () => {
    const org = organisation();
    const day = payoutDay();
    const { context } = pushIndex();
    const returned = reversalOf(day.p1, day.payout.key, '2026-11-20');
    const outcomes = await org
      .target()
      .pushMany([day.invoice, day.p1, day.fee, day.payout, returned], context);
    expect(outcomes.filter((o) => o instanceof Error)).toEqual([]);
    const transfer = double.all(org.tenantId, 'BankTransfers')[0];
    const notes = double.notesOf(org.tenantId, String(transfer?.BankTransferID));
    expect(notes).toEqual([...payoutNotes(day.payout.payout?.receipts ?? []), expect.any(String)]);
    expect(reversalsInNotes(notes).map((r) => [r.key, r.by])).toEqual([[day.p1.key, returned.key]]);
  });

  it('a reversal of a payment the transfer does not list adds no note', async () => {
    const org = organisation();
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    for (const doc of [day.invoice, day.p1, day.p2, day.fee, day.payout])
      pushed.set(doc.key, await org.target().push(doc, context));
    const transferId = idOf(pushed.get(day.payout.key)?.remoteIds[0]);
    await org.target().push(reversalOf(day.p2, day.payout.key, '2026-11-20'), context);
    expect(double.notesOf(org.tenantId, transferId)).toEqual(payoutNotes(day.payout.payout?.receipts ?? []));
  });

  it('a reversal’s note stays within Xero’s 250 characters, its reason cut, and reads back', () => {
    const receipt = { key: 'payment:pay_1', date: '2026-11-03', amountCents: 50_00 };
    const reversal = {
      key: 'reversal:payment:pay_1',
      date: '2026-11-20',
      reason: `Reversal of payment:pay_1: ${'ACH return R01 insufficient funds '.repeat(10)}`,
    } as TargetDocument;
    const note = reversalNote(receipt, reversal);
    expect(note.length).toBeLessThanOrEqual(NOTE_LIMIT);
    expect(note).toMatch(
      /^booksync payout: payment:pay_1 50\.00 2026-11-03 reversed since by reversal:payment:pay_1 on 2026-11-20: ACH return R01/,
    );
    expect(reversalsInNotes(['booksync payout (1/1) carries: payment:pay_1 50.00 2026-11-03', note])).toEqual(
      [
        {
          key: 'payment:pay_1',
          by: 'reversal:payment:pay_1',
          date: '2026-11-20',
          reason: expect.stringMatching(/…$/),
        },
      ],
    );
    expect(receiptsInNotes([note])).toEqual([]);
  });
});
