import { describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../../src/targets/errors.js';
import { marker } from '../../../src/targets/markers.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PayoutReceipt, TargetDocument } from '../../../src/targets/target-port.js';
import { NOTE_LIMIT, payoutNotes, receiptsInNotes } from '../../../src/targets/xero/payout-notes.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { XeroDouble } from '../../support/xero/double.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { payoutDay } from '../payout-documents.js';

// In Xero: a payout is a BankTransfer out of the Processor Clearing bank account, and its
// History & Notes list the receipts it carries (each by its ledger key, which the Payment's Reference carries),
// so "which payments are in this payout?" is answered from Xero alone; a push again adds no note twice.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
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
});
