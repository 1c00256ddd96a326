import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { RemoteRecord, TargetDocument } from '../../src/targets/target-port.js';
import { centsOf, isoDateOf, type TrytonDecimal } from '../../src/targets/tryton/json-rpc.js';
import { doubleForFile } from '../support/double-for-file.js';
import { pushIndex } from '../support/push-index.js';
import { quickBooksCompany } from '../support/quickbooks/company.js';
import { startTryton, type TrytonServer, trytonTarget } from '../support/tryton.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// An invoice of last period still owed when the books open (a backfill) is an opening document: `invoice:<link>`
// dated the day before the opening, Dr Accounts Receivable / Cr Opening Balances for what it owed that day.
// Each target holds it as a receivable of the customer, its other side on the target's Opening Balances
// account (never revenue), open until the payment after the opening settles it.

const hash = (c: string) => c.repeat(64);

/** A link owing 70.00 when the books opened on 2026-03-10, and its payment of 70.00 on 2026-03-15. */
function openingDocuments() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = { serviceId: `cus_${run}`, name: `Opening Owed ${run}`, email: `${run}@opening.test` };
  const invoice = { paymentLinkId: `pl_${run}`, number: `OB-${run}`, dueDate: '2026-03-31' };
  const base = { invoice, customer, reference: `pl_${run}` };
  const opening: TargetDocument = {
    ...base,
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: '2026-03-09',
    description: `Opening balance of the invoice of payment link pl_${run}, owed when the books opened on 2026-03-10`,
    amountCents: 70_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 70_00 },
      { role: 'OpeningBalances', amountCents: -70_00 },
    ],
    contentHash: hash('a'),
  };
  const payment: TargetDocument = {
    ...base,
    key: `payment:pay_${run}`,
    kind: 'payment',
    date: '2026-03-15',
    description: `Payment pay_${run} received`,
    amountCents: 70_00,
    lines: [
      { role: 'ProcessorClearing', amountCents: 70_00 },
      { role: 'AccountsReceivable', amountCents: -70_00 },
    ],
    contentHash: hash('b'),
    reference: `pay_${run}`,
    settles: { applied: [{ key: opening.key, amountCents: 70_00 }], unappliedCents: 0 },
  };
  return { opening, payment, link: invoice.paymentLinkId, number: invoice.number, customer };
}

describe('QuickBooks Online: an opening document', () => {
  const double = doubleForFile(new QuickBooksDouble());
  const cipher = new TokenCipher('test-secret-for-quickbooks-opening-invoices');
  const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

  it('is an Invoice through the item on Opening Balance Equity, its Balance 70.00 until the payment', async () => {
    const c = quickBooksCompany(double, cipher);
    const target = c.target();
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    const invoiceId = idOf(pushed.get(docs.opening.key)?.remoteIds[0]);
    const invoice = double.get(c.realmId, 'Invoice', invoiceId);
    expect(invoice).toMatchObject({
      DocNumber: docs.number,
      TotalAmt: 70,
      Balance: 70,
      TxnDate: '2026-03-09',
    });
    const customer = double.get(
      c.realmId,
      'Customer',
      String((invoice?.CustomerRef as { value: string } | undefined)?.value),
    );
    expect(customer?.DisplayName).toBe(docs.customer.name);

    const accounts = double.all(c.realmId, 'Account');
    const accountNamed = (name: string) => accounts.find((a) => a.Name === name);
    const equity = accountNamed('Opening Balance Equity');
    expect(equity?.AccountType).toBe('Equity');
    const lines = (
      (invoice?.Line as
        | {
            DetailType: string;
            Amount: number;
            SalesItemLineDetail?: { ItemRef: { value: string } };
          }[]
        | undefined) ?? []
    ).filter((l) => l.DetailType === 'SalesItemLineDetail');
    expect(lines).toHaveLength(1);
    const item = double.get(c.realmId, 'Item', String(lines[0]?.SalesItemLineDetail?.ItemRef.value));
    expect(item).toMatchObject({ Name: 'booksync OpeningBalances', IncomeAccountRef: { value: equity?.Id } });
    expect(lines[0]?.Amount).toBe(70);

    const payment = await target.push(docs.payment, context);
    expect(double.get(c.realmId, 'Payment', idOf(payment.remoteIds[0]))?.Line).toEqual([
      { Amount: 70, LinkedTxn: [{ TxnId: invoiceId, TxnType: 'Invoice' }] },
    ]);
    expect(double.get(c.realmId, 'Invoice', invoiceId)?.Balance).toBe(0);
    const figures = await target.figuresAsOf('2026-03-15');
    expect(figures.openInvoices[docs.link] ?? 0).toBe(0);
    expect(figures.balances.OpeningBalances).toBe(-70_00);
    // Nothing on Sales (booksync's Revenue): the company has no other postings.
    expect(figures.balances.Revenue ?? 0).toBe(0);
  });
});

describe('Xero: an opening document', { timeout: 60_000 }, () => {
  const double = doubleForFile(
    new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
    { calm: true },
  );
  const cipher = new TokenCipher('test-secret-for-xero-opening-invoices');
  const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

  it('is an ACCREC invoice whose line is on the Opening Balances (equity) account, due 70.00 until the payment', async () => {
    const { tenantId, target: connect } = xeroOrganisation(double, cipher, { lockTtlMs: 0 });
    const target = connect();
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    const invoiceId = idOf(pushed.get(docs.opening.key)?.remoteIds[0]);
    const invoice = () => double.get(tenantId, 'Invoices', invoiceId);
    expect(invoice()).toMatchObject({
      Type: 'ACCREC',
      Status: 'AUTHORISED',
      InvoiceNumber: docs.number,
      Total: 70,
      AmountDue: 70,
    });
    const contact = double.get(
      tenantId,
      'Contacts',
      String((invoice()?.Contact as { ContactID: string } | undefined)?.ContactID),
    );
    expect(contact?.Name).toBe(docs.customer.name);
    const lines = invoice()?.LineItems as { AccountCode: string; LineAmount: number }[];
    expect(lines.map((l) => [l.AccountCode, l.LineAmount])).toEqual([
      [defaultAccountCodes.OpeningBalances, 70],
    ]);
    const account = double
      .all(tenantId, 'Accounts')
      .find((a) => a.Code === defaultAccountCodes.OpeningBalances);
    expect(account?.Type).toBe('EQUITY');

    await target.push(docs.payment, context);
    expect(invoice()).toMatchObject({ AmountDue: 0, AmountPaid: 70, Status: 'PAID' });
    const figures = await target.figuresAsOf('2026-03-15');
    expect(figures.openInvoices[docs.link] ?? 0).toBe(0);
    expect(figures.balances.OpeningBalances).toBe(-70_00);
    expect(figures.balances.Revenue ?? 0).toBe(0);
  });
});

describe('Tryton: an opening document', { timeout: 180_000 }, () => {
  let tryton: TrytonServer;
  beforeAll(async () => {
    tryton = await startTryton();
  }, 300_000);
  afterAll(async () => {
    await tryton?.close();
  });

  type Line = {
    id: number;
    account: number;
    party: number | null;
    debit: TrytonDecimal;
    credit: TrytonDecimal;
    maturity_date: unknown;
    reconciliation: number | null;
  };
  const linesOf = (record: RemoteRecord | undefined) =>
    tryton.rpc.searchRead<Line>(
      'account.move.line',
      [['move', '=', Number(record?.remoteIds.find((r) => r.startsWith('account.move,'))?.split(',')[1])]],
      ['account', 'party', 'debit', 'credit', 'maturity_date', 'reconciliation'],
    );
  const accountIds = async (...codes: string[]) => {
    const rows = await tryton.rpc.searchRead<{ id: number; code: string }>(
      'account.account',
      [['code', 'in', codes]],
      ['code'],
    );
    return Object.fromEntries(rows.map((r) => [r.code, r.id]));
  };

  it('is the receivable brought forward: a move Dr the customer’s receivable (due as the link) / Cr Opening Balances, reconciled by the payment', async () => {
    const target = trytonTarget(tryton);
    const docs = openingDocuments();
    const { pushed, context } = pushIndex();
    const codes = defaultAccountCodes;
    const ids = await accountIds(codes.AccountsReceivable, codes.OpeningBalances, codes.Revenue);
    const revenueBefore = (await tryton.balances([codes.Revenue]))[codes.Revenue] ?? 0;

    pushed.set(docs.opening.key, await target.push(docs.opening, context));
    const opening = await linesOf(pushed.get(docs.opening.key));
    const receivable = opening.find((l) => l.account === ids[codes.AccountsReceivable]);
    expect(receivable).toMatchObject({ reconciliation: null });
    expect(centsOf(receivable?.debit)).toBe(70_00);
    expect(isoDateOf(receivable?.maturity_date)).toBe('2026-03-31');
    const [party] = await tryton.rpc.model<{ name: string }[]>(
      'party.party',
      'read',
      [receivable?.party],
      ['name'],
    );
    expect(party?.name).toBe(docs.customer.name);
    const equity = opening.find((l) => l.account === ids[codes.OpeningBalances]);
    expect(centsOf(equity?.credit)).toBe(70_00);
    expect(opening).toHaveLength(2);
    // Found again by its key (a crashed push is not made twice), and the link's open amount as Tryton's
    // aged balance counts it.
    expect((await target.find(docs.opening.key))?.remoteIds).toEqual(pushed.get(docs.opening.key)?.remoteIds);
    expect((await target.figuresAsOf('2026-03-10')).openInvoices[docs.link]).toBe(70_00);

    pushed.set(docs.payment.key, await target.push(docs.payment, context));
    const [after] = await tryton.rpc.model<Line[]>(
      'account.move.line',
      'read',
      [receivable?.id],
      ['reconciliation'],
    );
    expect(after?.reconciliation).not.toBeNull();
    const paying = (await linesOf(pushed.get(docs.payment.key))).find(
      (l) => l.account === ids[codes.AccountsReceivable],
    );
    expect(paying?.reconciliation).toBe(after?.reconciliation);
    expect((await target.figuresAsOf('2026-03-15')).openInvoices[docs.link] ?? 0).toBe(0);
    // Nothing booked to revenue, and no customer invoice made of it.
    expect((await tryton.balances([codes.Revenue]))[codes.Revenue] ?? 0).toBe(revenueBefore);
    const invoices = await tryton.rpc.searchRead(
      'account.invoice',
      [['reference', '=', docs.number]],
      ['id'],
    );
    expect(invoices).toEqual([]);
  });

  it('pushed in one slice (pushMany), the payment waits for the opening move and then closes it', async () => {
    const target = trytonTarget(tryton);
    const docs = openingDocuments();
    const { context } = pushIndex();
    const [opening, payment] = await target.pushMany([docs.opening, docs.payment], context);
    if (!opening || opening instanceof Error) throw opening ?? new Error('no outcome');
    if (!payment || payment instanceof Error) throw payment ?? new Error('no outcome');
    expect(opening.remoteIds).toEqual([expect.stringMatching(/^account\.move,\d+$/)]);
    const receivable = (await linesOf(opening)).find((l) => centsOf(l.debit) === 70_00);
    expect(receivable?.reconciliation).not.toBeNull();
    expect((await target.figuresAsOf('2026-03-15')).openInvoices[docs.link] ?? 0).toBe(0);
  });
});

describe('ledger mirror: an opening document', () => {
  const mirror = EmbeddedLedger.open();
  afterAll(() => mirror.close());

  it('is the entry as booked: A/R against Opening Balances, settled by the payment, nothing on Revenue', async () => {
    const target = new LedgerMirrorTarget(mirror);
    const docs = openingDocuments();
    await target.push(docs.opening);
    expect((await mirror.get(docs.opening.key))?.lines).toEqual([
      { account: Accounts.AccountsReceivable, amountCents: 70_00 },
      { account: Accounts.OpeningBalances, amountCents: -70_00 },
    ]);
    await target.push(docs.payment);
    const balance = async (account: string) =>
      (await mirror.balances()).find((b) => b.account === account)?.balanceCents ?? 0;
    expect(await balance(Accounts.AccountsReceivable)).toBe(0);
    expect(await balance(Accounts.OpeningBalances)).toBe(-70_00);
    expect(await balance(Accounts.Revenue)).toBe(0);
  });
});
