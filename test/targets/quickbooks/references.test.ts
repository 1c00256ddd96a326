import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushInOrder } from '../../support/push-index.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { documentsForContract } from '../target-contract.js';
import { twoLineDocuments } from '../two-line-documents.js';

// The business's own reference of the money is in the field QuickBooks' bank matching and
// "ref no." search read (a Payment's PaymentRefNum, a Deposit's and a check BillPayment's DocNumber), and
// booksync's marker stays in PrivateNote; a restarted worker still finds every document by its key.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-references');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const company = () => quickBooksCompany(double, cipher);

/** A restarted worker: nothing in memory, no index, every key possibly at QBO already. */
const restarted: PushContext = {
  mayExist: () => true,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};

function day() {
  const docs = documentsForContract();
  const two = twoLineDocuments(docs.payment, (key) => key.length.toString(16).padStart(64, '5'));
  const run = docs.run;
  const check = two(
    `external-payment:ep_${run}`,
    'external-payment',
    'ChecksToDeposit',
    'AccountsReceivable',
    40_00,
    { reference: `ep_${run}`, businessReference: 'CHK-1042' },
  );
  const wire = two(
    `external-payment:ep2_${run}`,
    'external-payment',
    'OperatingBank',
    'AccountsReceivable',
    10_00,
    { reference: `ep2_${run}`, businessReference: `WIRE-2026-11-03-ACME-CORP-${run}` },
  );
  const payout = two(
    `disbursement-paid:dis_${run}`,
    'disbursement-paid',
    'OperatingBank',
    'PayoutsInTransit',
    73_25,
    { invoice: undefined, customer: undefined, reference: `dis_${run}`, businessReference: `dis_${run}` },
  );
  const vendor = { serviceId: `ven_${run}`, name: `Vendor ${run}`, email: null };
  const bill = { billId: `bill_${run}`, number: `V-${run}` };
  const billDoc = two(`bill:${bill.billId}`, 'bill', 'BillExpenses', 'AccountsPayable', 300_00, {
    invoice: undefined,
    customer: undefined,
    bill,
    vendor,
    reference: bill.billId,
  });
  const billPayment = two(
    `bill-payment-sent:bp_${run}`,
    'bill-payment-sent',
    'AccountsPayable',
    'OutgoingPaymentsClearing',
    300_00,
    {
      invoice: undefined,
      customer: undefined,
      bill,
      vendor,
      reference: `bp_${run}`,
      businessReference: '1042',
    },
  );
  return { docs, check, wire, payout, billDoc, billPayment };
}

describe('QuickBooks Online: the business’s references', () => {
  it('an external payment’s reference is its PaymentRefNum; the marker stays in PrivateNote; found again after a restart', async () => {
    const c = company();
    const d = day();
    const pushed = await pushInOrder(c.target(), [d.docs.invoice, d.check]);
    const payment = double.get(c.realmId, 'Payment', idOf(pushed.get(d.check.key)?.remoteIds[0]));
    expect(payment?.PaymentRefNum).toBe('CHK-1042');
    expect(String(payment?.PrivateNote)).toBe(`booksync key=${d.check.key} hash=${d.check.contentHash}`);
    // A new process with no index: found by its key, not made again.
    const again = await c.target().push(d.check, restarted);
    expect(again).toMatchObject({ created: false, remoteIds: pushed.get(d.check.key)?.remoteIds });
    expect(double.all(c.realmId, 'Payment')).toHaveLength(1);
  });

  it('a reference longer than 21 characters: its first 21 in PaymentRefNum, whole in PrivateNote after the marker', async () => {
    const c = company();
    const d = day();
    const pushed = await pushInOrder(c.target(), [d.docs.invoice, d.wire]);
    const payment = double.get(c.realmId, 'Payment', idOf(pushed.get(d.wire.key)?.remoteIds[0]));
    expect(payment?.PaymentRefNum).toBe((d.wire.businessReference as string).slice(0, 21));
    expect(String(payment?.PrivateNote).split('\n')).toEqual([
      `booksync key=${d.wire.key} hash=${d.wire.contentHash}`,
      `reference ${d.wire.businessReference}`,
    ]);
  });

  it('a payout’s Deposit is numbered with the payout id, and found again by date and marker', async () => {
    const c = company();
    const d = day();
    const pushed = await pushInOrder(c.target(), [d.payout]);
    const deposit = double.get(c.realmId, 'Deposit', idOf(pushed.get(d.payout.key)?.remoteIds[0]));
    expect(deposit?.DocNumber).toBe(`dis_${d.docs.run}`);
    expect(await c.target().push(d.payout, restarted)).toMatchObject({ created: false });
    expect(double.all(c.realmId, 'Deposit')).toHaveLength(1);
  });

  it('a bill payment by check is numbered with the check’s number, found again with the document and with the key alone', async () => {
    const c = company();
    const d = day();
    const pushed = await pushInOrder(c.target(), [d.billDoc, d.billPayment]);
    const remoteIds = pushed.get(d.billPayment.key)?.remoteIds;
    expect(double.get(c.realmId, 'BillPayment', idOf(remoteIds?.[0]))?.DocNumber).toBe('1042');
    expect(await c.target().push(d.billPayment, restarted)).toMatchObject({ created: false, remoteIds });
    expect(await c.target().find(d.billPayment.key)).toMatchObject({ remoteIds });
    expect(double.all(c.realmId, 'BillPayment')).toHaveLength(1);
  });

  it('a bill payment pushed before it had a check number (the key’s tag) is still found once the document has one', async () => {
    const c = company();
    const d = day();
    const { businessReference: _, ...untagged } = d.billPayment;
    const pushed = await pushInOrder(c.target(), [d.billDoc, untagged]);
    const remoteIds = pushed.get(d.billPayment.key)?.remoteIds;
    expect(double.get(c.realmId, 'BillPayment', idOf(remoteIds?.[0]))?.DocNumber).toMatch(/^bs/);
    expect(await c.target().push(d.billPayment, restarted)).toMatchObject({ created: false, remoteIds });
    expect(await c.target().find(d.billPayment.key)).toMatchObject({ remoteIds });
    expect(double.all(c.realmId, 'BillPayment')).toHaveLength(1);
  });
});
