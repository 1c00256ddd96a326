import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { marker } from '../../../src/targets/markers.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushInOrder } from '../../support/push-index.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';

// In Xero: a money record's Reference starts with the business's own reference (what Find &
// Match searches and the reconciliation screen shows), booksync's marker after it; a restarted worker finds
// every record by key, those written before references (marker first) included.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
  { calm: true },
);
const cipher = new TokenCipher('test-secret-for-xero-references');
const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';
const hash = (c: string) => c.repeat(64);

const organisation = () => xeroOrganisation(double, cipher, { lockTtlMs: 0 });

/** A restarted worker: nothing in memory, no index, every key possibly at Xero already. */
const restarted: PushContext = {
  mayExist: () => true,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};

function day() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `Ref Payer ${run}`, email: `${run}@ref.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `RF-${run}` };
  const invoiceDoc: TargetDocument = {
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: '2026-11-02',
    description: `Invoice for payment link pl_${run}`,
    amountCents: 100_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 100_00 },
      { role: 'Revenue', amountCents: -100_00 },
    ],
    contentHash: hash('a'),
    invoice,
    customer,
  };
  const check: TargetDocument = {
    key: `external-payment:ep_${run}`,
    kind: 'external-payment',
    date: '2026-11-03',
    description: `External payment ep_${run} on payment link pl_${run}`,
    amountCents: 40_00,
    lines: [
      { role: 'ChecksToDeposit', amountCents: 40_00 },
      { role: 'AccountsReceivable', amountCents: -40_00 },
    ],
    contentHash: hash('b'),
    invoice,
    customer,
    reference: `ep_${run}`,
    businessReference: 'CHK-1042',
  };
  const payout: TargetDocument = {
    key: `disbursement-paid:dis_${run}`,
    kind: 'disbursement-paid',
    date: '2026-11-04',
    description: `Disbursement dis_${run} paid`,
    amountCents: 73_25,
    lines: [
      { role: 'OperatingBank', amountCents: 73_25 },
      { role: 'PayoutsInTransit', amountCents: -73_25 },
    ],
    contentHash: hash('c'),
    reference: `dis_${run}`,
    businessReference: `dis_${run}`,
  };
  return { run, invoiceDoc, check, payout };
}

describe('Xero: the business’s references', () => {
  it('an external payment’s Payment: Reference is the business’s reference, then the marker; found again after a restart', async () => {
    const org = organisation();
    const d = day();
    const pushed = await pushInOrder(org.target(), [d.invoiceDoc, d.check]);
    const remoteIds = pushed.get(d.check.key)?.remoteIds;
    const payment = double.get(org.tenantId, 'Payments', idOf(remoteIds?.[0]));
    expect(payment?.Reference).toBe(`CHK-1042 ${marker(d.check.key, d.check.contentHash)}`);
    // A new process with no index: found by its key (Reference.Contains), not paid twice.
    expect(await org.target().push(d.check, restarted)).toMatchObject({ created: false, remoteIds });
    expect(await org.target().find(d.check.key)).toMatchObject({
      remoteIds,
      contentHash: d.check.contentHash,
    });
    expect(double.all(org.tenantId, 'Payments')).toHaveLength(1);
  });

  it('a payout’s BankTransfer carries the payout id first; pushMany after a restart finds it', async () => {
    const org = organisation();
    const d = day();
    const pushed = await pushInOrder(org.target(), [d.payout]);
    const remoteIds = pushed.get(d.payout.key)?.remoteIds;
    const transfer = double.get(org.tenantId, 'BankTransfers', idOf(remoteIds?.[0]));
    expect(transfer?.Reference).toBe(`dis_${d.run} ${marker(d.payout.key, d.payout.contentHash)}`);
    const [again] = await org.target().pushMany([d.payout], restarted);
    expect(again).toMatchObject({ created: false, remoteIds });
    expect(double.all(org.tenantId, 'BankTransfers')).toHaveLength(1);
  });

  it('a record pushed before references (the marker first) is found when the document now has one: no duplicate', async () => {
    const org = organisation();
    const d = day();
    const { businessReference: _, ...before } = d.check;
    const pushed = await pushInOrder(org.target(), [d.invoiceDoc, before]);
    const remoteIds = pushed.get(d.check.key)?.remoteIds;
    expect(double.get(org.tenantId, 'Payments', idOf(remoteIds?.[0]))?.Reference).toBe(
      marker(d.check.key, d.check.contentHash),
    );
    expect(await org.target().push(d.check, restarted)).toMatchObject({ created: false, remoteIds });
    const [batched] = await org.target().pushMany([d.check], restarted);
    expect(batched).toMatchObject({ created: false, remoteIds });
    expect(double.all(org.tenantId, 'Payments')).toHaveLength(1);
  });

  it('keeps Reference within 255 characters: a long reference is cut, the marker never', async () => {
    const org = organisation();
    const d = day();
    const long: TargetDocument = { ...d.check, businessReference: `R${'x'.repeat(300)}` };
    const pushed = await pushInOrder(org.target(), [d.invoiceDoc, long]);
    const reference = String(
      double.get(org.tenantId, 'Payments', idOf(pushed.get(long.key)?.remoteIds[0]))?.Reference,
    );
    expect(reference).toHaveLength(255);
    expect(reference.endsWith(` ${marker(long.key, long.contentHash)}`)).toBe(true);
    expect(await org.target().find(long.key)).toMatchObject({ remoteIds: pushed.get(long.key)?.remoteIds });
  });

  it('money in parts: each part’s Reference starts with the reference, its tag read after the marker only', async () => {
    const org = organisation();
    const d = day();
    // 140.00 on a 100.00 invoice: 100.00 to the invoice, 40.00 the customer's credit. A reference that
    // names a part must not pass for the part's tag.
    const money: TargetDocument = {
      ...d.check,
      amountCents: 140_00,
      lines: [
        { role: 'OperatingBank', amountCents: 140_00 },
        { role: 'AccountsReceivable', amountCents: -140_00 },
      ],
      businessReference: 'part=credit WIRE-77',
      settles: { applied: [{ key: d.invoiceDoc.key, amountCents: 100_00 }], unappliedCents: 40_00 },
    };
    const pushed = await pushInOrder(org.target(), [d.invoiceDoc, money]);
    const remoteIds = pushed.get(money.key)?.remoteIds ?? [];
    expect(remoteIds.map((r) => r.split(':')[0])).toEqual(['Payment', 'BankTransaction']);
    const mark = marker(money.key, money.contentHash);
    expect(double.get(org.tenantId, 'Payments', idOf(remoteIds[0]))?.Reference).toBe(
      `part=credit WIRE-77 ${mark} part=${d.invoiceDoc.key}`,
    );
    expect(double.get(org.tenantId, 'BankTransactions', idOf(remoteIds[1]))?.Reference).toBe(
      `part=credit WIRE-77 ${mark} part=credit booksync link=${d.invoiceDoc.invoice?.paymentLinkId}`,
    );
    // A restart finds both parts by the document's key, in order, and makes neither again.
    expect(await org.target().push(money, restarted)).toMatchObject({ created: false, remoteIds });
    expect(double.all(org.tenantId, 'Payments')).toHaveLength(1);
    expect(double.all(org.tenantId, 'BankTransactions')).toHaveLength(1);
  });
});
