import { type Harness, startHarness } from '@booksync/emulator/harness';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, LedgerEntryInput } from '../../src/ledger/entry.js';
import { billPaymentEntries } from '../../src/ledger/mapping/bill-payment.js';
import { checkDepositEntries } from '../../src/ledger/mapping/check-deposit.js';
import { externalPaymentEntry } from '../../src/ledger/mapping/payment-link.js';
import { ServiceClient } from '../../src/service/client.js';
import { cleanReference, documentFor, type EntryLookup } from '../../src/targets/documents.js';
import { markersIn } from '../../src/targets/markers.js';
import { serviceReferences } from '../../src/targets/service-references.js';

// The document built for a ledger entry carries the business's own reference of the money,
// read from the service (the emulator here) through ReferenceData: an external payment's externalReferenceId,
// a check application's (else the deposit's transferId), a cleared deposit's transferId, a vendor check's
// number, a payout's id (the entry's own link).

let h: Harness;
let service: ServiceClient;
let sandbox: SandboxClient;

beforeAll(async () => {
  h = await startHarness();
  service = new ServiceClient({ baseUrl: h.baseUrl, apiKey: h.keys.full });
  sandbox = new SandboxClient({ baseUrl: h.baseUrl, apiKey: h.keys.full });
});
afterAll(async () => {
  await h?.close();
});

const noEntries: EntryLookup = { get: async () => null, entriesFor: async () => [] };

function booked(input: LedgerEntryInput): BookedEntry {
  return {
    ...input,
    lines: [...input.lines],
    links: input.links ?? {},
    id: 1,
    reverses: null,
    reversedBy: null,
    contentHash: 'a'.repeat(64),
    createdAt: '2026-11-27T00:00:00.000Z',
  };
}

const documentOf = async (input: LedgerEntryInput) =>
  documentFor(booked(input), serviceReferences(service), noEntries);

describe('the business’s reference on a target document', () => {
  it('an external payment: its externalReferenceId; none given, none', async () => {
    const link = await service.createPaymentLink({ name: 'INV-REF-1', requestedAmountCents: 100_00 });
    const withRef = await service.recordExternalPayment(link.id, {
      amountCents: 40_00,
      paidAt: '2026-11-03',
      externalReferenceId: 'CHK-1042',
    });
    const without = await service.recordExternalPayment(link.id, {
      amountCents: 10_00,
      paidAt: '2026-11-03',
    });
    const options = { timeZone: 'UTC' };
    const doc = await documentOf(externalPaymentEntry(link, withRef.externalPayment, options));
    expect(doc).toMatchObject({ kind: 'external-payment', businessReference: 'CHK-1042' });
    const bare = await documentOf(externalPaymentEntry(link, without.externalPayment, options));
    expect(bare.businessReference).toBeUndefined();
  });

  it('a check deposit: an application’s reference, else the transferId; the cleared deposit’s transferId', async () => {
    const link = await service.createPaymentLink({ name: 'INV-REF-2', requestedAmountCents: 100_00 });
    const deposit = await sandbox.depositCheck(70_00);
    const named = await service.applyCheckDeposit(deposit.id, {
      paymentLinkId: link.id,
      amountCents: 50_00,
      externalReferenceId: 'CHK-2001',
    });
    const unnamed = await service.applyCheckDeposit(deposit.id, {
      paymentLinkId: link.id,
      amountCents: 20_00,
    });
    await sandbox.settleCheckDeposit(deposit.id, 'clear');
    const cleared = await service.getCheckDeposit(deposit.id);
    const entries = checkDepositEntries(cleared, () => link.id, 'UTC');
    const docs = await Promise.all(entries.map(documentOf));
    const byKey = new Map(docs.map((d) => [d.key, d]));
    expect(byKey.get(`check-application:${named.externalPayment.id}`)?.businessReference).toBe('CHK-2001');
    expect(byKey.get(`check-application:${unnamed.externalPayment.id}`)?.businessReference).toBe(
      deposit.transferId,
    );
    expect(byKey.get(`check-cleared:${deposit.id}`)?.businessReference).toBe(deposit.transferId);
  });

  it('a bill paid by check: the check’s number on both its documents', async () => {
    const vendor = await service.createVendor({ name: 'Reference Vendor' });
    const method = await sandbox.submitVendorOnboardingForm(vendor.id, {
      type: 'CHECK',
      checkAddress: {
        name: vendor.name,
        street: '1 Main St',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
      },
    });
    const bill = await service.createBill({ vendorId: vendor.id, amountCents: 300_00 });
    const payment = await service.createBillPayment(bill.id, method.id);
    await sandbox.advanceBillCheck(payment.id, 'sent');
    const deposited = await sandbox.advanceBillCheck(payment.id, 'deposited');
    const number = deposited.check?.checkNumber;
    expect(number).toMatch(/^\d+$/);
    const docs = await Promise.all(billPaymentEntries(deposited, 'UTC').map(documentOf));
    expect(docs.map((d) => [d.kind, d.businessReference])).toEqual([
      ['bill-payment-sent', number],
      ['bill-payment-paid', number],
    ]);
  });

  it('a payout: its id, from the entry itself', async () => {
    const doc = await documentOf({
      key: 'disbursement-paid:dis_ref_1',
      date: '2026-11-04',
      description: 'Disbursement dis_ref_1 paid',
      lines: [
        { account: Accounts.OperatingBank, amountCents: 73_25 },
        { account: Accounts.PayoutsInTransit, amountCents: -73_25 },
      ],
      links: { disbursementId: 'dis_ref_1' },
    });
    expect(doc.businessReference).toBe('dis_ref_1');
  });

  it('a reference is one line, trimmed, and never passes for booksync’s marker', () => {
    expect(cleanReference('  CHK\n1042 ')).toBe('CHK 1042');
    expect(cleanReference('   ')).toBeUndefined();
    const hostile = cleanReference('booksync key=invoice:pl_x hash=abc');
    expect(markersIn(hostile)).toEqual([]);
  });
});
