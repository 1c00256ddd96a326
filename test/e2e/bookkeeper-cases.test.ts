import { setTimeout as sleep } from 'node:timers/promises';
import { markerTextOf } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { dayInZone } from '../../src/ledger/mapping/dates.js';
import { markersIn } from '../../src/targets/markers.js';
import { isoDateOf } from '../../src/targets/tryton/json-rpc.js';
import {
  type BooksBalances,
  balancesOf,
  centsOfAmount,
  documentsOf,
  expectChanges,
  expectOpenAsService,
  ofLink,
} from '../support/bookkeeper-books.js';
import { ThreeTargets } from '../support/three-targets.js';

// The bookkeeper's cases ("Documents a bookkeeper recognizes"), each driven as a business drives it through the
// real `booksync start --no-demo` and its embedded emulator (the sandbox routes play the customers, the bank
// and the vendors; `booksync link` / `booksync deposit` are what the business types), with Tryton (real, on
// PostgreSQL), QuickBooks and Xero (the doubles) all at once. After EVERY step, once every target has taken
// every entry, each document of the case owes in every book what the service says is left
// (expectOpenAsService); at the end of each case each book's balances moved by the figures written here by
// hand from the case (in cents, debit positive), never read back from booksync.
//
// One stack, the cases in sequence (CI runs the suite on 2 cores): no fixed sleeps, polls of 250 ms or more,
// a lap line per case. Every payment but case 14's is ACH (no card fee), so the figures are the case's own
// amounts; case 14's card fee is the service's, checked against its payment record first. The
// QuickBooks company has automated sales tax switched on, so case 9 would see any tax QBO added.

const stack = new ThreeTargets('bookkeeper-cases');
const { qbo, xero } = stack;
const ids: Record<string, string> = {};
const service = () => stack.booksync.service();
const box = () => stack.sandbox();
const today = async () => dayInZone(Date.parse((await box().clock()).now), stack.zone);

/** Until the ledger's entries satisfy `ok`, then until every target took every entry. */
async function settled(what: string, ok: (entries: BookedEntry[]) => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!ok(await stack.entries())) {
    if (Date.now() > deadline) throw new Error(`never booked: ${what}`);
    await sleep(300);
  }
  await stack.untilAllPushed();
}

/** A step is done: what it books is booked, every target has it, and every document owes what the service says. */
async function step(what: string, ok: (entries: BookedEntry[]) => boolean, links: string[]) {
  await settled(what, ok);
  await expectOpenAsService(stack, links);
}

const has = (key: string) => (entries: BookedEntry[]) => entries.some((e) => e.key === key);
const linkHas =
  (linkId: string, prefix: string, count = 1) =>
  (entries: BookedEntry[]) =>
    ofLink(entries, linkId).filter((e) => e.key.startsWith(prefix) && !e.reverses).length >= count;
const all =
  (...checks: ((entries: BookedEntry[]) => boolean)[]) =>
  (entries: BookedEntry[]) =>
    checks.every((c) => c(entries));

const link = async (
  name: string,
  cents: number,
  extra: { reusable?: boolean; dueDate?: string; amountEditable?: boolean } = {},
) => (await service().createPaymentLink({ name, requestedAmountCents: cents, ...extra })).id;

/** An ACH payment of the link (its remainder unless `cents`), settled at once when `settle`. */
async function payAch(linkId: string, cents?: number, settle = false): Promise<string> {
  const payment = await box().payLink(linkId, 'ACH', cents);
  if (settle) await box().settlePayment(payment.id);
  return payment.id;
}

let before: BooksBalances;
let began = 0;
const startCase = async () => {
  before = await balancesOf(stack);
  began = Date.now();
};
const endCase = (n: number) =>
  stack.lap(`case ${n} checked (${((Date.now() - began) / 1000).toFixed(1)} s for the case)`);

beforeAll(async () => {
  await stack.up({
    // One returned-check fee per check (case 5), charged by booksync as a debit memo on the first link.
    // Payouts to the account ending 4321 are received in Payout Bank (case 11).
    env: { RETURNED_CHECK_FEE_CENTS: '2500', PAYOUT_BANK_ACCOUNTS: '4321' },
    realm: { automatedSalesTax: { ratePercent: 8.25 } },
  });
  // What the service holds before the cases (the emulator's seeded links) booked now: else the hourly
  // scheduled reconciliation, firing at the top of an hour mid-case, would book it inside a case's figures.
  await stack.cli(['reconcile', '--all']);
  await stack.untilAllPushed();
  stack.lap('books reconciled before the cases');
}, 600_000);

afterAll(async () => {
  await stack.down();
}, 120_000);

describe("the bookkeeper's cases through `booksync start`, in Tryton, QuickBooks and Xero at once", {
  timeout: 300_000,
}, () => {
  it('1: sales on a reusable link are revenue and their refund contra revenue; Accounts Receivable never moves', async () => {
    await startCase();
    ids.reusable = await link('CASE1-STANDING-PRICE', 2_500, { reusable: true });
    const sales = [];
    for (let i = 0; i < 3; i++) sales.push(await payAch(ids.reusable, 2_500, true));
    ids.sales = sales.join(',');
    await settled('three sales', all(...sales.map((p) => has(`sale:${p}`))));
    // No invoice for a standing price, in any book: only sales.
    expect(ofLink(await stack.entries(), ids.reusable).map((e) => e.key.split(':')[0])).toEqual([
      'sale',
      'sale',
      'sale',
    ]);
    await expectChanges(stack, before, { ProcessorClearing: 7_500, Revenue: -7_500 });
    const refunded = await service().refundPayment(sales[0] as string, { amountCents: 2_500 });
    const refundId = refunded.refunds[0]?.id as string;
    await settled('the refund', has(`refund:${refundId}`));
    // A sale's refund reopens nothing: no refund-reopen, no receivable.
    expect((await stack.entries()).some((e) => e.key === `refund-reopen:${refundId}`)).toBe(false);
    // Three sales of 2,500 (Dr clearing 7,500 / Cr Revenue 7,500), one refunded (Dr Refunds 2,500 / Cr clearing).
    await expectChanges(stack, before, { ProcessorClearing: 5_000, Revenue: -7_500, Refunds: 2_500 });
    await stack.expectAtEveryTarget([...sales.map((p) => `sale:${p}`), `refund:${refundId}`]);
    // (A payment on no link cannot be made through the emulator: every sandbox payment pays a link.)
    endCase(1);
  });

  it('2: a 10,000 link lowered to 8,000 and paid 8,000 is credited and applied: every invoice open 0', async () => {
    await startCase();
    const id = await link('CASE2-LOWERED', 10_000);
    ids.lowered = id;
    await stack.cli(['link', 'sync', id]);
    await step('the invoice', has(`invoice:${id}`), [id]);
    await service().updatePaymentLink(id, { requestedAmountCents: 8_000 });
    await stack.cli(['link', 'sync', id]);
    await step('the lowering', has(`invoice-adjustment:${id}:1`), [id]);
    const payment = await payAch(id);
    ids.loweredPayment = payment;
    await step('the payment', has(`payment:${payment}`), [id]);
    // Invoice 10,000 (Dr AR / Cr Revenue), lowered by 2,000 (Dr Discounts and Write-offs / Cr AR), paid 8,000
    // (Dr clearing / Cr AR).
    await expectChanges(stack, before, {
      ProcessorClearing: 8_000,
      Revenue: -10_000,
      DiscountsAndWriteOffs: 2_000,
    });
    // The lowering is a credit applied to the invoice, in each target's own way.
    const memo = qbo
      .all(stack.realmId, 'CreditMemo')
      .find((m) => markersIn(m.PrivateNote).some((k) => k.key === `invoice-adjustment:${id}:1`));
    expect(centsOfAmount(memo?.TotalAmt)).toBe(2_000);
    expect(centsOfAmount(memo?.Balance)).toBe(0);
    const note = xero
      .all(stack.tenantId, 'CreditNotes')
      .find((n) => markersIn(markerTextOf(n)).some((k) => k.key === `invoice-adjustment:${id}:1`));
    expect([centsOfAmount(note?.Total), centsOfAmount(note?.RemainingCredit)]).toEqual([2_000, 0]);
    endCase(2);
  });

  it('3: a 10,000 link and its 2,500 debit memo paid 12,500 together: both documents paid in every target', async () => {
    await startCase();
    const id = await link('CASE3-WITH-MEMO', 10_000);
    ids.memo = id;
    await stack.cli(['link', 'debit-memo', id, '--amount', '2500', '--description', 'late fee']);
    await step('the invoice and its memo', all(has(`invoice:${id}`), linkHas(id, 'debit-memo:')), [id]);
    const payment = await payAch(id, 12_500);
    ids.memoPayment = payment;
    await step('the payment of both', has(`payment:${payment}`), [id]);
    // Invoice 10,000 (Dr AR / Cr Revenue), memo 2,500 (Dr AR / Cr Fee Income), paid 12,500 (Dr clearing / Cr AR).
    await expectChanges(stack, before, { ProcessorClearing: 12_500, Revenue: -10_000, FeeIncome: -2_500 });
    // No overpayment, no credit left: Xero holds none, QBO's payment is applied whole.
    expect(
      xero.all(stack.tenantId, 'BankTransactions').filter((t) => String(t.Type).includes('OVERPAYMENT')),
    ).toEqual([]);
    endCase(3);
  });

  it('4: a 150,000 check, 100,000 applied, deposited, cleared, then 50,000 applied after clearing', async () => {
    await startCase();
    const id = await link('CASE4-CHECK', 150_000);
    ids.checkLink = id;
    const check = await box().depositCheck(150_000, 'case 4 check #4150');
    ids.check = check.id;
    ids.checkTransfer = check.transferId;
    await stack.cli(['deposit', 'apply', check.id, id, '--amount', '100000']);
    await step(
      'the deposit and the first application',
      all(has(`invoice:${id}`), has(`check-deposited:${check.id}`), linkHas(id, 'check-application:')),
      [id],
    );
    // The whole check is in Checks To Deposit; what is not applied is the customer's credit in Unapplied Cash.
    await expectChanges(stack, before, {
      ChecksToDeposit: 150_000,
      UnappliedCash: -50_000,
      AccountsReceivable: 50_000,
      Revenue: -150_000,
    });
    await box().settleCheckDeposit(check.id, 'clear');
    await stack.cli(['deposit', 'refresh', check.id]);
    await step('the clearing', has(`check-cleared:${check.id}`), [id]);
    await stack.cli(['deposit', 'apply', check.id, id]);
    await step('the application after clearing', linkHas(id, 'check-application:', 2), [id]);
    // The bank got the whole check; Unapplied Cash and Checks To Deposit are back where they were.
    await expectChanges(stack, before, { OperatingBank: 150_000, Revenue: -150_000 });
    endCase(4);
  });

  it('5: a check spread over 3 links and returned: one fee on the first link, not three', async () => {
    await startCase();
    const links = [
      await link('CASE5-A', 10_000),
      await link('CASE5-B', 10_000),
      await link('CASE5-C', 10_000),
    ];
    const check = await box().depositCheck(30_000, 'case 5 check #5300');
    for (const id of links) await stack.cli(['deposit', 'apply', check.id, id]);
    await step(
      'three applications',
      all(
        has(`check-deposited:${check.id}`),
        ...links.map((id) => all(has(`invoice:${id}`), linkHas(id, 'check-application:'))),
      ),
      links,
    );
    await box().settleCheckDeposit(check.id, 'return');
    await stack.cli(['deposit', 'refresh', check.id]);
    const applications = (await stack.entries())
      .filter((e) => e.key.startsWith('check-application:') && e.links.checkDepositId === check.id)
      .map((e) => e.key);
    expect(applications).toHaveLength(3);
    const reversed = (entries: BookedEntry[]) =>
      applications.every((key) => entries.some((e) => e.reverses === key));
    await step('the return and its fee', all(reversed, linkHas(links[0] as string, 'debit-memo:')), links);
    // One fee per check: a single 2,500 memo, on the first link.
    const memos = await Promise.all(links.map(async (id) => (await service().getPaymentLink(id)).debitMemos));
    expect(memos.map((m) => m.map((x) => x.amountCents))).toEqual([[2_500], [], []]);
    // Invoices 30,000 (Dr AR / Cr Revenue); the check's 30,000 applied and reversed with it; the fee 2,500
    // (Dr AR / Cr Fee Income). No bank charge: the emulator reports none for a returned check (the spec has no
    // field for it), so Bank Charges stays at 0.
    await expectChanges(stack, before, { AccountsReceivable: 32_500, Revenue: -30_000, FeeIncome: -2_500 });
    endCase(5);
  });

  it('6: a payout links the payments it carries; Undeposited Funds keeps only the payments in no payout', async () => {
    await startCase();
    const p1 = await link('CASE6-PAID-OUT-1', 30_000);
    const p2 = await link('CASE6-PAID-OUT-2', 20_000);
    const paid = [await payAch(p1, undefined, true), await payAch(p2, undefined, true)];
    await step(
      'two payments',
      all(has(`invoice:${p1}`), has(`invoice:${p2}`), ...paid.map((p) => has(`payment:${p}`))),
      [p1, p2],
    );
    const payout = await box().batchDisbursement();
    ids.payout = payout.id;
    // What is settled and in no payout yet: case 1's three sales (one refunded, netting 0) and these two.
    expect(payout.amountInCents).toBe(2_500 + 2_500 + 30_000 + 20_000);
    await box().succeedDisbursement(payout.id);
    await settled(
      'the payout',
      all(has(`disbursement-pending:${payout.id}`), has(`disbursement-paid:${payout.id}`)),
    );
    const p3 = await link('CASE6-NOT-PAID-OUT', 10_000);
    const later = await payAch(p3, undefined, true);
    await step('a payment after the payout', all(has(`invoice:${p3}`), has(`payment:${later}`)), [
      p1,
      p2,
      p3,
    ]);
    // Invoices 60,000 paid into the clearing account; the payout of 55,000 from it to the bank.
    await expectChanges(stack, before, { ProcessorClearing: 5_000, Revenue: -60_000, OperatingBank: 55_000 });

    const carried = (await service().getDisbursement(payout.id)).paymentIds;
    const keyOf = (paymentId: string, entries: BookedEntry[]) =>
      entries.find((e) => !e.reverses && (e.key === `payment:${paymentId}` || e.key === `sale:${paymentId}`))
        ?.key;
    const entries = await stack.entries();
    const carriedKeys = carried.map((p) => keyOf(p, entries)).sort();
    expect(carriedKeys).toEqual(
      [...(ids.sales as string).split(','), ...paid].map((p) => keyOf(p, entries)).sort(),
    );
    // QuickBooks: the payout's Deposit links exactly its payments and sales receipts, and beside them what
    // they net in Undeposited Funds (case 1's refund receipt, fee journals): nothing else.
    const received = [...qbo.all(stack.realmId, 'Payment'), ...qbo.all(stack.realmId, 'SalesReceipt')];
    const keyOfQbo = new Map(received.map((d) => [String(d.Id), markersIn(d.PrivateNote)[0]?.key ?? '']));
    const nettedDocs = [
      ...qbo.all(stack.realmId, 'RefundReceipt'),
      ...qbo.all(stack.realmId, 'JournalEntry'),
    ];
    const keyOfNetted = new Map(
      nettedDocs.map((d) => [String(d.Id), markersIn(d.PrivateNote)[0]?.key ?? '']),
    );
    const deposits = qbo.all(stack.realmId, 'Deposit');
    const linkedBy = (d: Record<string, unknown>) =>
      ((d.Line as { LinkedTxn?: { TxnId: string; TxnType: string }[] }[] | undefined) ?? []).flatMap(
        (l) => l.LinkedTxn ?? [],
      );
    const payoutDeposit = deposits.find((d) =>
      markersIn(d.PrivateNote).some((m) => m.key === `disbursement-pending:${payout.id}`),
    );
    const payoutLinks = linkedBy(payoutDeposit ?? {});
    const receiptLink = (l: { TxnType: string }) => l.TxnType === 'Payment' || l.TxnType === 'SalesReceipt';
    expect(
      payoutLinks
        .filter(receiptLink)
        .map((l) => keyOfQbo.get(l.TxnId) ?? '')
        .filter((key) => /^(payment|sale):/.test(key))
        .sort(),
    ).toEqual(carriedKeys);
    const ofCarried = new Set(
      entries.filter((e) => carried.includes(e.links.paymentId as string)).map((e) => e.key),
    );
    const nettedLinks = payoutLinks
      .filter((l) => !receiptLink(l))
      .map((l) => keyOfNetted.get(l.TxnId) ?? `${l.TxnType} ${l.TxnId}`);
    expect(nettedLinks.filter((key) => !ofCarried.has(key))).toEqual([]);
    expect(nettedLinks).toEqual(expect.arrayContaining([expect.stringMatching(/^refund:/)]));
    // Undeposited Funds holds exactly the receipts no payout carried: every payment booksync booked that the
    // service says is in no payout.
    const clearing = qbo.all(stack.realmId, 'Account').find((a) => a.AcctNum === '1020')?.Id;
    const depositedIds = new Set(deposits.flatMap((d) => linkedBy(d).map((l) => l.TxnId)));
    const undeposited = received
      .filter((d) => (d.DepositToAccountRef as { value?: string } | undefined)?.value === clearing)
      .filter((d) => !depositedIds.has(String(d.Id)) && !String(d.PrivateNote ?? '').startsWith('Voided'))
      .map((d) => keyOfQbo.get(String(d.Id)))
      .sort();
    const receipts = entries.filter(
      (e) => !e.reverses && !e.reversedBy && /^(payment|sale):/.test(e.key) && e.links.paymentId,
    );
    const inNoPayout = [];
    for (const e of receipts)
      if (!(await service().getPayment(e.links.paymentId as string)).disbursement) inNoPayout.push(e.key);
    expect(undeposited).toEqual(inNoPayout.sort());
    expect(inNoPayout).toEqual(expect.arrayContaining([`payment:${later}`]));
    // Xero: the payout's transfer lists its receipts in History & Notes; Tryton: the payout's move names each.
    const transfer = xero
      .all(stack.tenantId, 'BankTransfers')
      .find((t) => markersIn(markerTextOf(t)).some((m) => m.key === `disbursement-pending:${payout.id}`));
    const notes = xero.notesOf(stack.tenantId, String(transfer?.BankTransferID)).join('\n');
    expect(carriedKeys.filter((k) => !notes.includes(k as string))).toEqual([]);
    const lines = await stack.tryton.rpc.searchRead<{ description: string | null }>(
      'account.move.line',
      [['description', 'like', '%: carries %']],
      ['description'],
    );
    const trytonCarried = lines.map((l) => String(l.description));
    expect(carriedKeys.filter((k) => !trytonCarried.some((d) => d.endsWith(`carries ${k}`)))).toEqual([]);
    endCase(6);
  });

  it("7: each target's reconciliation fields carry the service's references; invoices are due on the link's dueDate", async () => {
    await startCase();
    const day = await today();
    const due = new Date(Date.parse(`${day}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10);
    const id = await link('CASE7-REFERENCES', 20_000, { dueDate: due });
    ids.references = id;
    await stack.cli([
      'link',
      'record-payment',
      id,
      '--amount',
      '5000',
      '--paid-at',
      day,
      '--reference',
      'WIRE-0007',
    ]);
    await step('the external payment', all(has(`invoice:${id}`), linkHas(id, 'external-payment:')), [id]);
    // Invoice 20,000 (Dr AR / Cr Revenue), 5,000 received outside the service (Dr Checks To Deposit / Cr AR).
    await expectChanges(stack, before, {
      AccountsReceivable: 15_000,
      Revenue: -20_000,
      ChecksToDeposit: 5_000,
    });
    const external = ofLink(await stack.entries(), id).find((e) => e.key.startsWith('external-payment:'))
      ?.key as string;
    const qboBy = (entity: string, key: string) =>
      qbo.all(stack.realmId, entity).find((d) => markersIn(d.PrivateNote).some((m) => m.key === key));
    const xeroBy = (collection: Parameters<typeof xero.all>[1], key: string) =>
      xero.all(stack.tenantId, collection).find((d) => markersIn(markerTextOf(d)).some((m) => m.key === key));
    const xeroDay = (value: unknown) => {
      const ms = /^\/Date\((-?\d+)/.exec(String(value ?? ''))?.[1];
      return ms ? new Date(Number(ms)).toISOString().slice(0, 10) : String(value ?? '').slice(0, 10);
    };
    /** How many Tryton move lines' descriptions begin with the reference. */
    const trytonLines = async (prefix: string) =>
      (
        await stack.tryton.rpc.searchRead<{ description: string | null }>(
          'account.move.line',
          [['description', 'like', `${prefix} - %`]],
          ['description'],
        )
      ).length;
    // QuickBooks: PaymentRefNum / DocNumber; booksync's marker stays in PrivateNote.
    expect({
      due: qboBy('Invoice', `invoice:${id}`)?.DueDate,
      payment: qboBy('Payment', external)?.PaymentRefNum,
      cleared: qboBy('Deposit', `check-cleared:${ids.check}`)?.DocNumber,
      payout: qboBy('Deposit', `disbursement-paid:${ids.payout}`)?.DocNumber,
    }).toEqual({ due, payment: 'WIRE-0007', cleared: ids.checkTransfer, payout: ids.payout });
    // Xero: Reference begins with the business's reference; the invoice is due on the link's day.
    expect({
      due: xeroDay(xeroBy('Invoices', `invoice:${id}`)?.DueDate),
      payment: String(xeroBy('Payments', external)?.Reference ?? '').split(' ')[0],
      cleared: String(xeroBy('BankTransfers', `check-cleared:${ids.check}`)?.Reference ?? '').split(' ')[0],
      payout: String(xeroBy('BankTransfers', `disbursement-paid:${ids.payout}`)?.Reference ?? '').split(
        ' ',
      )[0],
    }).toEqual({ due, payment: 'WIRE-0007', cleared: ids.checkTransfer, payout: ids.payout });
    // Tryton: the move lines' description begins with the reference; the invoice's payment term counts from
    // the link's due day.
    const [invoice] = await stack.tryton.rpc.searchRead<{ payment_term_date: unknown }>(
      'account.invoice',
      [['comment', '=', `booksync-link:${id}`]],
      ['payment_term_date'],
    );
    expect({
      due: isoDateOf(invoice?.payment_term_date),
      payment: (await trytonLines('WIRE-0007')) > 0,
      cleared: (await trytonLines(ids.checkTransfer as string)) > 0,
      payout: (await trytonLines(ids.payout as string)) > 0,
    }).toEqual({ due, payment: true, cleared: true, payout: true });
    endCase(7);
  });

  // Before case 8, the first to move the service's clock: booksync dates a link's invoice by its own day (the
  // service gives a link no date), which Tryton's numbering would otherwise set apart from the service's days.
  it('17: the same events make the same documents in every book, whether booksync followed each step or saw them all late, last first and twice', async () => {
    await startCase();
    /** One twin's records: an ACH payment returned, an ACH payment partly refunded, a vendor check returned. */
    const twin = async (tag: string, followed: boolean) => {
      const ids: Record<string, string> = {};
      const waitFor = async (what: string, ok: (entries: BookedEntry[]) => boolean) => {
        if (followed) await settled(`${tag}: ${what}`, ok);
      };
      ids.returnedLink = await link(`CASE17-${tag}-ACH-RETURNED`, 7_000);
      ids.refundedLink = await link(`CASE17-${tag}-ACH-REFUNDED`, 10_000);
      ids.returned = await payAch(ids.returnedLink);
      await waitFor('the payment', has(`payment:${ids.returned}`));
      await box().returnAchPayment(ids.returned);
      await waitFor('the return', has(`reversal:payment:${ids.returned}`));
      ids.refunded = await payAch(ids.refundedLink, undefined, true);
      await waitFor('the second payment', has(`payment:${ids.refunded}`));
      const refunded = await service().refundPayment(ids.refunded, { amountCents: 3_000 });
      ids.refund = refunded.refunds[0]?.id as string;
      await waitFor('the refund', has(`refund:${ids.refund}`));
      const vendor = await service().createVendor({
        name: `Case 17 ${tag} Mill`,
        email: `${tag}@case17.example`,
      });
      ids.vendor = vendor.id;
      const method = await box().submitVendorOnboardingForm(vendor.id, {
        type: 'CHECK',
        checkAddress: {
          name: 'Case 17 Mill',
          street: '1 Mill Rd',
          city: 'Salina',
          state: 'KS',
          zip: '67401',
        },
      });
      const bill = await service().createBill({
        vendorId: vendor.id,
        amountCents: 1_200,
        invoiceNumber: `C17-${tag}`,
      });
      ids.bill = bill.id;
      ids.check = (await service().createBillPayment(bill.id, method.id)).id;
      await box().advanceBillCheck(ids.check, 'sent');
      await waitFor('the check sent', has(`bill-payment-sent:${ids.check}`));
      await box().advanceBillCheck(ids.check, 'returned');
      await waitFor('the check returned', has(`reversal:bill-payment-sent:${ids.check}`));
      return ids;
    };
    const followed = await twin('A', true);
    // The second twin's webhooks held until all of it happened, then delivered last first, each twice.
    await box().holdWebhooks();
    const late = await twin('B', false);
    expect(await box().releaseWebhooks({ order: 'reversed', times: 2 })).toBeGreaterThanOrEqual(6);
    const done = (ids: Record<string, string>) =>
      all(
        has(`reversal:payment:${ids.returned}`),
        has(`refund-reopen:${ids.refund}`),
        has(`reversal:bill-payment-sent:${ids.check}`),
      );
    await settled('the late twin, from its last events first', done(late));
    await stack.untilAllPushed();
    await expectOpenAsService(stack, [
      followed.returnedLink,
      followed.refundedLink,
      late.returnedLink,
      late.refundedLink,
    ] as string[]);
    // Per twin: the returned payment leaves its 7,000 owed; the refunded one 3,000 owed and 7,000 in clearing;
    // the returned check leaves the 1,200 bill owed. Twice.
    await expectChanges(stack, before, {
      AccountsReceivable: 2 * (7_000 + 3_000),
      Revenue: -2 * (7_000 + 10_000),
      ProcessorClearing: 2 * 7_000,
      BillExpenses: 2 * 1_200,
      AccountsPayable: -2 * 1_200,
    });
    // Each book holds the same documents for both twins, once the twins' service ids are named alike.
    const entries = await stack.entries();
    const documents = async (ids: Record<string, string>) => {
      const own = new Set(Object.values(ids));
      const keys = new Set(
        entries.filter((e) => Object.values(e.links).some((v) => own.has(v as string))).map((e) => e.key),
      );
      const rename = (text: string) =>
        Object.entries(ids).reduce((t, [name, id]) => t.replaceAll(id, `<${name}>`), text);
      return documentsOf(stack, keys, rename);
    };
    const [a, b] = [await documents(followed), await documents(late)];
    for (const book of ['ledger', 'quickbooks', 'xero', 'tryton'] as const) {
      expect(a[book].length, `${book} holds documents of the twin`).toBeGreaterThanOrEqual(3);
      expect({ book, documents: b[book] }).toEqual({ book, documents: a[book] });
    }
    endCase(17);
  });

  it('8: an ACH bill payment sent one day and completed the next: the bank is credited on the day it was sent', async () => {
    await startCase();
    const vendor = await service().createVendor({ name: 'Case 8 Supplies', email: 'ap@case8.example' });
    const method = await box().submitVendorOnboardingForm(vendor.id, {
      type: 'ACH',
      routingNumber: '011000015',
      accountNumber: '000987654321',
      accountType: 'CHECKING',
    });
    const bill = await service().createBill({
      vendorId: vendor.id,
      amountCents: 120_000,
      invoiceNumber: 'C8-120',
    });
    const payment = await service().createBillPayment(bill.id, method.id);
    await box().advanceBillAch(payment.id, 'sent');
    const sentOn = await today();
    const completedOn = dayInZone(Date.parse((await box().advanceClock({ days: 1 })).now), stack.zone);
    await box().advanceBillAch(payment.id, 'succeeded');
    const paidKey = `bill-payment-paid:${payment.id}`;
    await settled(
      'the bill payment',
      all(has(`bill:${bill.id}`), has(`bill-payment-sent:${payment.id}`), has(paidKey)),
    );
    const paid = (await stack.entries()).find((e) => e.key === paidKey);
    expect([paid?.date, completedOn > sentOn]).toEqual([sentOn, true]);
    // The bill 120,000 (Dr Bill Expenses / Cr AP), sent (Dr AP / Cr Outgoing Payments Clearing) and debited
    // from the bank the day it was sent (Dr Outgoing Payments Clearing / Cr Bank).
    await expectChanges(stack, before, { BillExpenses: 120_000, OperatingBank: -120_000 });
    // Each target dates the bank's credit the day it was sent.
    const qboDoc = ['JournalEntry', 'Deposit', 'Transfer', 'Purchase']
      .flatMap((entity) => qbo.all(stack.realmId, entity))
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === paidKey));
    const xeroDoc = xero
      .booked(stack.tenantId)
      .find((d) => markersIn(markerTextOf(d)).some((m) => m.key === paidKey));
    const xeroDay = /^\/Date\((-?\d+)/.exec(String(xeroDoc?.Date ?? ''))?.[1];
    const [move] = await stack.tryton.rpc.searchRead<{ date: unknown }>(
      'account.move',
      [['description', 'like', `booksync:${paidKey} %`]],
      ['date'],
    );
    expect({
      quickbooks: qboDoc?.TxnDate,
      xero: xeroDay ? new Date(Number(xeroDay)).toISOString().slice(0, 10) : xeroDoc?.Date,
      tryton: isoDateOf(move?.date),
    }).toEqual({ quickbooks: sentOn, xero: sentOn, tryton: sentOn });
    endCase(8);
  });

  it('10: a receivable written off is Bad Debt, an expense, where a price concession is contra revenue', async () => {
    await startCase();
    // The payer may pay part of it (amountEditable), as a customer who can pay no more.
    const id = (
      await service().createPaymentLink({
        name: 'CASE10-WRITTEN-OFF',
        requestedAmountCents: 10_000,
        amountEditable: true,
      })
    ).id;
    ids.writtenOff = id;
    await stack.cli(['link', 'sync', id]);
    await step('the invoice', has(`invoice:${id}`), [id]);
    const payment = await payAch(id, 6_000);
    await step('the part paid', has(`payment:${payment}`), [id]);
    // The business writes the rest off: recorded in the books, then the link lowered at the service.
    const run = await stack.cli(['link', 'write-off', id, '--reason', 'customer insolvent']);
    expect(run.stdout).toContain('$40.00 to Bad Debt (customer insolvent)');
    expect((await service().getPaymentLink(id)).requestedAmountCents).toBe(6_000);
    await step('the write-off', has(`invoice-adjustment:${id}:1`), [id]);
    // Invoice 10,000 (Dr AR / Cr Revenue), paid 6,000 (Dr clearing / Cr AR), 4,000 written off (Dr Bad Debt /
    // Cr AR): Revenue stays what was invoiced, Discounts and Write-offs never moves.
    await expectChanges(stack, before, { ProcessorClearing: 6_000, Revenue: -10_000, BadDebt: 4_000 });
    // Nothing is left to write off: refused, the books unchanged.
    const refused = await stack.cli(['link', 'write-off', id], 1);
    expect(refused.stderr).toContain('nothing_to_write_off');
    // Booked, it stands: withdrawing it is refused, and the link has no other write-off to withdraw.
    const ledgerWriteOffs = await stack.writeOffsFor(id);
    expect(ledgerWriteOffs.map((w) => [w.amountCents, w.reason, w.withdrawnAt])).toEqual([
      [4_000, 'customer insolvent', null],
    ]);
    const stands = await stack.cli(['link', 'withdraw-write-off', id, ledgerWriteOffs[0]!.id], 1);
    expect(stands.stderr).toContain('write_off_booked');
    expect((await stack.cli(['link', 'withdraw-write-off', id, 'wo-none'], 1)).stderr).toContain(
      'write_off_not_found',
    );
    await expectChanges(stack, before, { ProcessorClearing: 6_000, Revenue: -10_000, BadDebt: 4_000 });
    endCase(10);
  });

  it("11: a payout to the business's second bank account (PAYOUT_BANK_ACCOUNTS) is received in Payout Bank, not Operating Bank", async () => {
    // What earlier cases left settled and in no payout goes out first, to the organisation's own account,
    // so this case's payout carries its own payment only.
    const earlier = await box()
      .batchDisbursement()
      .catch(() => null);
    if (earlier) {
      await box().succeedDisbursement(earlier.id);
      await settled('the earlier payout', has(`disbursement-paid:${earlier.id}`));
    }
    await startCase();
    const id = await link('CASE11-PAID-OUT-ELSEWHERE', 12_000);
    const paid = await payAch(id, undefined, true);
    await step('the payment', all(has(`invoice:${id}`), has(`payment:${paid}`)), [id]);
    const payout = await box().batchDisbursement({ bankName: 'Second Bank', accountNumberLastFour: '4321' });
    expect({ amount: payout.amountInCents, carries: payout.paymentIds }).toEqual({
      amount: 12_000,
      carries: [paid],
    });
    await box().succeedDisbursement(payout.id);
    await step(
      'the payout to the second account',
      all(has(`disbursement-pending:${payout.id}`), has(`disbursement-paid:${payout.id}`)),
      [id],
    );
    // Invoice 12,000 paid into clearing (Dr clearing / Cr AR), paid out to the account ending 4321: Dr Payout
    // Bank / Cr clearing through Payouts In Transit. The Operating Bank never moves.
    await expectChanges(stack, before, { Revenue: -12_000, PayoutBank: 12_000 });
    endCase(11);
  });

  it('9: no target adds tax the service never charged', async () => {
    await startCase();
    // QuickBooks (automated sales tax on): every sales line carries the non-taxable code, nothing owed.
    const sales = ['Invoice', 'SalesReceipt', 'RefundReceipt', 'CreditMemo'].flatMap((entity) =>
      qbo.all(stack.realmId, entity).map((d) => ({ entity, d })),
    );
    expect(sales.length).toBeGreaterThan(10);
    const codes = sales.flatMap(({ entity, d }) =>
      ((d.Line as { DetailType?: string; SalesItemLineDetail?: { TaxCodeRef?: { value?: string } } }[]) ?? [])
        .filter((l) => l.DetailType === 'SalesItemLineDetail')
        .map((l) => `${entity} ${l.SalesItemLineDetail?.TaxCodeRef?.value}`),
    );
    expect(codes.filter((c) => !c.endsWith(' NON'))).toEqual([]);
    expect(
      sales.filter(({ d }) => centsOfAmount((d.TxnTaxDetail as { TotalTax?: unknown })?.TotalTax) !== 0),
    ).toEqual([]);
    expect(qbo.salesTaxOwed(stack.realmId)).toBe(0);
    // Xero: every line of every invoice, bill, credit note and bank transaction in the no-tax type.
    const docs = (['Invoices', 'CreditNotes', 'BankTransactions'] as const).flatMap((c) =>
      xero.all(stack.tenantId, c),
    );
    expect(docs.length).toBeGreaterThan(10);
    const types = docs.flatMap((d) =>
      ((d.LineItems as { TaxType?: string }[]) ?? []).map((l) => `${d.Type} ${l.TaxType}`),
    );
    expect(types.filter((t) => !t.endsWith(' NONE'))).toEqual([]);
    expect(docs.filter((d) => centsOfAmount(d.TotalTax) !== 0)).toEqual([]);
    // Tryton: no tax on any invoice booksync made.
    const invoices = await stack.tryton.rpc.searchRead<{ tax_amount: unknown }>(
      'account.invoice',
      [['description', 'like', 'booksync:%']],
      ['tax_amount'],
    );
    expect(invoices.length).toBeGreaterThan(5);
    expect(
      invoices.filter(
        (i) => centsOfAmount((i.tax_amount as { decimal?: string })?.decimal ?? i.tax_amount) !== 0,
      ),
    ).toEqual([]);
    // Nothing moved, and the three targets' books still equal the ledger's, account by account.
    await expectChanges(stack, before, {});
    const now = await balancesOf(stack);
    expect({ quickbooks: now.quickbooks, xero: now.xero, tryton: now.tryton }).toEqual({
      quickbooks: now.ledger,
      xero: now.ledger,
      tryton: now.ledger,
    });
    endCase(9);
  });

  it("12: a vendor's bills on the account VENDOR_EXPENSE_ACCOUNTS names: every target expenses them there, the ledger on Bill Expenses", async () => {
    // The business's own Rent account in each target's chart, as its bookkeeper keeps it.
    const rent = '6300';
    qbo.seed(stack.realmId, 'Account', {
      Name: 'Rent or Lease',
      AcctNum: rent,
      AccountType: 'Expense',
      AccountSubType: 'RentOrLeaseOfBuildings',
      Active: true,
    });
    xero.seed(stack.tenantId, 'Accounts', {
      Code: rent,
      Name: 'Rent',
      Type: 'OVERHEADS',
      Class: 'EXPENSE',
      Status: 'ACTIVE',
      EnablePaymentsToAccount: false,
    });
    const [expenses] = await stack.tryton.rpc.searchRead<{ type: number; parent: number }>(
      'account.account',
      [['code', '=', '6020']],
      ['type', 'parent'],
    );
    await stack.tryton.rpc.model('account.account', 'create', [
      { code: rent, name: 'Rent', type: expenses?.type, parent: expenses?.parent },
    ]);
    const landlord = await service().createVendor({ name: 'Case 12 Landlord', email: 'rent@case12.example' });
    const method = await box().submitVendorOnboardingForm(landlord.id, {
      type: 'ACH',
      routingNumber: '011000015',
      accountNumber: '000555666777',
      accountType: 'CHECKING',
    });
    // The setting names the vendor the service gave: booksync started again with it, as an operator does.
    await stack.booksync.halt();
    stack.booksync.env.VENDOR_EXPENSE_ACCOUNTS = `${landlord.id}=${rent}`;
    const from = stack.booksync.output.length;
    stack.booksync.start({}, ['--no-demo']);
    await stack.booksync.running(from);
    await startCase();
    const rentBefore = await rentBalances(rent);
    const bill = await service().createBill({
      vendorId: landlord.id,
      amountCents: 250_000,
      invoiceNumber: 'C12-RENT',
    });
    const payment = await service().createBillPayment(bill.id, method.id);
    await box().advanceBillAch(payment.id, 'sent');
    await box().advanceBillAch(payment.id, 'succeeded');
    await settled(
      'the rent bill and its payment',
      all(
        has(`bill:${bill.id}`),
        has(`bill-payment-sent:${payment.id}`),
        has(`bill-payment-paid:${payment.id}`),
      ),
    );
    // The ledger: Dr Bill Expenses / Cr AP, paid from the bank. The targets: the same bank and payables, the
    // expense on Rent, not on Bill Expenses.
    const now = await balancesOf(stack);
    const moved = (book: keyof typeof now) => ({
      BillExpenses: now[book].BillExpenses - before[book].BillExpenses,
      OperatingBank: now[book].OperatingBank - before[book].OperatingBank,
      AccountsPayable: now[book].AccountsPayable - before[book].AccountsPayable,
    });
    const rentMoved = Object.fromEntries(
      Object.entries(await rentBalances(rent)).map(([book, cents]) => [
        book,
        cents - (rentBefore[book] ?? 0),
      ]),
    );
    expect({
      ledger: moved('ledger'),
      tryton: { ...moved('tryton'), rent: rentMoved.tryton },
      quickbooks: { ...moved('quickbooks'), rent: rentMoved.quickbooks },
      xero: { ...moved('xero'), rent: rentMoved.xero },
    }).toEqual({
      ledger: { BillExpenses: 250_000, OperatingBank: -250_000, AccountsPayable: 0 },
      tryton: { BillExpenses: 0, OperatingBank: -250_000, AccountsPayable: 0, rent: 250_000 },
      quickbooks: { BillExpenses: 0, OperatingBank: -250_000, AccountsPayable: 0, rent: 250_000 },
      xero: { BillExpenses: 0, OperatingBank: -250_000, AccountsPayable: 0, rent: 250_000 },
    });
    // Each target's own bill document is on Rent and paid.
    const qboBill = qbo
      .all(stack.realmId, 'Bill')
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === `bill:${bill.id}`));
    const qboLine = (
      (qboBill?.Line ?? []) as { AccountBasedExpenseLineDetail: { AccountRef: { value: string } } }[]
    )[0];
    const xeroBill = xero
      .booked(stack.tenantId)
      .find((d) => markersIn(markerTextOf(d)).some((m) => m.key === `bill:${bill.id}`));
    const [trytonBill] = await stack.tryton.rpc.searchRead<{ lines: number[]; amount_to_pay: unknown }>(
      'account.invoice',
      [['description', 'like', `booksync:bill:${bill.id} %`]],
      ['lines', 'amount_to_pay'],
    );
    const [trytonLine] = await stack.tryton.rpc.searchRead<{ account: number }>(
      'account.invoice.line',
      [['id', 'in', trytonBill?.lines ?? []]],
      ['account'],
    );
    const [trytonAccount] = await stack.tryton.rpc.searchRead<{ code: string }>(
      'account.account',
      [['id', '=', trytonLine?.account ?? 0]],
      ['code'],
    );
    expect({
      quickbooks: [
        qbo.get(stack.realmId, 'Account', qboLine?.AccountBasedExpenseLineDetail.AccountRef.value ?? '')
          ?.AcctNum,
        qboBill?.Balance,
      ],
      xero: [((xeroBill?.LineItems ?? []) as { AccountCode: string }[])[0]?.AccountCode, xeroBill?.AmountDue],
      tryton: [
        trytonAccount?.code,
        centsOfAmount((trytonBill?.amount_to_pay as { decimal?: string })?.decimal),
      ],
    }).toEqual({ quickbooks: [rent, 0], xero: [rent, 0], tryton: [rent, 0] });
    endCase(12);
  });

  it('13: a check received outside the service waits in Checks To Deposit until its deposit slip takes it to the bank', async () => {
    await startCase();
    const id = await link('CASE13-CHECK-BY-MAIL', 30_000);
    await stack.cli(['link', 'sync', id]);
    await step('the invoice', has(`invoice:${id}`), [id]);
    const day = await today();
    await stack.cli([
      'link',
      'record-payment',
      id,
      '--amount',
      '30000',
      '--paid-at',
      day,
      '--reference',
      'CHK-1313',
    ]);
    const [check] = (await service().getPaymentLink(id)).externalPayments;
    expect([check?.amountCents, check?.externalReferenceId]).toEqual([30_000, 'CHK-1313']);
    const recorded = `external-payment:${check?.id}`;
    await step('the check recorded', has(recorded), [id]);
    // Invoiced 30,000 (Dr AR / Cr Revenue), the check received (Dr Checks To Deposit / Cr AR): not yet banked.
    await expectChanges(stack, before, { ChecksToDeposit: 30_000, Revenue: -30_000 });
    await stack.cli(['link', 'deposit', '--date', day, '--reference', 'SLIP-13', `${id}:${check?.id}`]);
    await step('the deposit slip', has('deposit-slip:SLIP-13'), [id]);
    // The slip: Dr Operating Bank / Cr Checks To Deposit, in every book.
    await expectChanges(stack, before, { OperatingBank: 30_000, Revenue: -30_000 });
    await stack.expectAtEveryTarget([`invoice:${id}`, recorded, 'deposit-slip:SLIP-13']);
    // A check is banked once: the same payment on another slip is refused, naming the slip that took it.
    const again = await stack.cli(
      ['link', 'deposit', '--date', day, '--reference', 'SLIP-13B', `${id}:${check?.id}`],
      1,
    );
    expect(again.stderr).toContain(`external payment ${check?.id} is on deposit slip SLIP-13 already`);
    await expectChanges(stack, before, { OperatingBank: 30_000, Revenue: -30_000 });
    endCase(13);
  });

  it('14: a card payment whose payer pays half the fee: the charge is revenue and Surcharge Income, the whole fee an expense', async () => {
    await startCase();
    const id = (
      await service().createPaymentLink({
        name: 'CASE14-CARD-SURCHARGE',
        requestedAmountCents: 25_000,
        feePassthroughPercent: 50,
      })
    ).id;
    const payment = await box().payLink(id, 'Card');
    // The service's figures (decision “Fees”): a fee of 755 on 25,000, 378 of it charged to the payer.
    expect([payment.chargedAmountInCents, payment.platformFeeInCents]).toEqual([25_378, 377]);
    await step(
      'the card payment',
      all(
        has(`invoice:${id}`),
        has(`payment:${payment.id}`),
        has(`payment-surcharge:${payment.id}`),
        has(`payment-fee:${payment.id}`),
        has(`surcharge-fee:${payment.id}`),
      ),
      [id],
    );
    // Charged 25,378 into clearing: 25,000 pays the invoice, 378 is Surcharge Income; the processor keeps the
    // whole fee, 377 + 378 = 755 (Dr Processing Fees / Cr clearing). Gross 25,378 is what it reports.
    await expectChanges(stack, before, {
      ProcessorClearing: 25_378 - 755,
      Revenue: -25_000,
      SurchargeIncome: -378,
      ProcessingFees: 755,
    });
    await stack.expectAtEveryTarget([
      `payment:${payment.id}`,
      `payment-surcharge:${payment.id}`,
      `payment-fee:${payment.id}`,
      `surcharge-fee:${payment.id}`,
    ]);
    endCase(14);
  });

  it('15: a sale paid out and then returned in the same month: a corrective document where the vendor will not void it, revenue back to nothing', async () => {
    // What earlier cases left settled goes out first, so this case's payout carries its own sale only.
    const earlier = await box()
      .batchDisbursement()
      .catch(() => null);
    if (earlier) {
      await box().succeedDisbursement(earlier.id);
      await settled('the earlier payout', has(`disbursement-paid:${earlier.id}`));
    }
    await startCase();
    const standing = await link('CASE15-STANDING-ORDER', 5_000, { reusable: true });
    const sale = await payAch(standing, 5_000, true);
    await settled('the sale', has(`sale:${sale}`));
    const payout = await box().batchDisbursement();
    expect(payout.paymentIds).toEqual([sale]);
    await box().succeedDisbursement(payout.id);
    await settled('the payout', has(`disbursement-paid:${payout.id}`));
    // The sale (Dr clearing / Cr Revenue) paid out to the bank through Payouts In Transit.
    await expectChanges(stack, before, { OperatingBank: 5_000, Revenue: -5_000 });
    await box().returnAchPayment(sale);
    const returned = `reversal:sale:${sale}`;
    await settled('the return', has(returned));
    // The sale reversed (Dr Revenue / Cr clearing): the bank keeps the payout, the clearing owes it back.
    await expectChanges(stack, before, { OperatingBank: 5_000, ProcessorClearing: -5_000 });
    // QuickBooks refuses to void a deposited sales receipt (6540): it stands, and the return is a journal.
    const receipt = qbo
      .all(stack.realmId, 'SalesReceipt')
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === `sale:${sale}`));
    expect(qbo.isVoided(stack.realmId, 'SalesReceipt', String(receipt?.Id))).toBe(false);
    expect(
      qbo
        .all(stack.realmId, 'JournalEntry')
        .filter((d) => markersIn(d.PrivateNote).some((m) => m.key === returned)),
    ).toHaveLength(1);
    for (const target of ['tryton', 'quickbooks', 'xero'] as const)
      expect([target, (await stack.store.targetIndex.get(target, returned))?.status]).toEqual([
        target,
        'PUSHED',
      ]);
    endCase(15);
  });

  it("16: an entry is dated by the service's own time for what it records, in the business's time zone, never by when booksync ran", async () => {
    await startCase();
    const standing = await link('CASE16-REFUNDED-DAYS-LATER', 3_000, { reusable: true });
    const sale = await payAch(standing, 3_000, true);
    await settled('the sale', has(`sale:${sale}`));
    // The service's clock days ahead of the machine's: its records carry its time, booksync runs on this day.
    const serviceDay = dayInZone(Date.parse((await box().advanceClock({ days: 3 })).now), stack.zone);
    const ranOn = dayInZone(Date.now(), stack.zone);
    expect(serviceDay > ranOn).toBe(true);
    const refunded = await service().refundPayment(sale, { amountCents: 3_000 });
    const refundKey = `refund:${refunded.refunds[0]?.id}`;
    await settled('the refund', has(refundKey));
    expect((await stack.entries()).find((e) => e.key === refundKey)?.date).toBe(serviceDay);
    // Sold 3,000 (Dr clearing / Cr Revenue), refunded 3,000 (Dr Refunds / Cr clearing).
    await expectChanges(stack, before, { Revenue: -3_000, Refunds: 3_000 });
    // Each target dates its document by the service's day too.
    const qboDoc = ['RefundReceipt', 'JournalEntry', 'Purchase']
      .flatMap((entity) => qbo.all(stack.realmId, entity))
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === refundKey));
    const xeroDoc = xero
      .booked(stack.tenantId)
      .find((d) => markersIn(markerTextOf(d)).some((m) => m.key === refundKey));
    const xeroDay = /^\/Date\((-?\d+)/.exec(String(xeroDoc?.Date ?? ''))?.[1];
    const trytonDates: string[] = [];
    for (const model of ['account.move', 'account.invoice']) {
      const rows = await stack.tryton.rpc.searchRead<{ description: string | null }>(
        model,
        [['description', 'like', `booksync:${refundKey} %`]],
        [model === 'account.move' ? 'date' : 'invoice_date'],
      );
      for (const row of rows as Record<string, unknown>[])
        trytonDates.push(isoDateOf((row.date ?? row.invoice_date) as never) ?? '');
    }
    expect({
      quickbooks: qboDoc?.TxnDate,
      xero: xeroDay ? new Date(Number(xeroDay)).toISOString().slice(0, 10) : xeroDoc?.Date,
      tryton: trytonDates,
    }).toEqual({ quickbooks: serviceDay, xero: serviceDay, tryton: [serviceDay] });
    endCase(16);
  });

  it("18: a debit memo voided in its month while the service's clock runs ahead of booksync's: undone in place, never dated before the memo; every document owes what the service says", async () => {
    // After case 16 the service's day is days ahead of the day booksync runs on: the link is invoiced on
    // booksync's day (the service gives a link no date), the memo and the payment on the service's, and the
    // void, for which the service gives no time, on booksync's: before the memo it undoes, but for the rule
    // that a reversal is never dated before what it reverses.
    await startCase();
    const id = await link('CASE18-MEMO-VOIDED', 12_000, { amountEditable: true });
    await stack.cli(['link', 'debit-memo', id, '--amount', '1500', '--description', 'rush fee']);
    await step('the invoice and its memo', all(has(`invoice:${id}`), linkHas(id, 'debit-memo:')), [id]);
    const memoId = (await service().getPaymentLink(id)).debitMemos[0]?.id as string;
    // A part payment: it settles the oldest document, the link's own invoice.
    const payment = await payAch(id, 1_500);
    await step('a part payment', has(`payment:${payment}`), [id]);
    await stack.cli(['link', 'void-memo', id, memoId]);
    await step('the void', has(`reversal:debit-memo:${memoId}`), [id]);
    const entries = await stack.entries();
    const memoDate = entries.find((e) => e.key === `debit-memo:${memoId}`)?.date as string;
    expect(entries.find((e) => e.key === `reversal:debit-memo:${memoId}`)?.date).toBe(memoDate);
    // The memo's charge invoice, unpaid, is undone in place: voided at QuickBooks and Xero.
    const qboMemo = qbo
      .all(stack.realmId, 'Invoice')
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === `debit-memo:${memoId}`));
    expect(qbo.isVoided(stack.realmId, 'Invoice', String(qboMemo?.Id))).toBe(true);
    const xeroMemo = xero
      .all(stack.tenantId, 'Invoices')
      .find((d) => markersIn(markerTextOf(d)).some((m) => m.key === `debit-memo:${memoId}`));
    expect(xeroMemo?.Status).toBe('VOIDED');
    // The service: 12,000 asked, 1,500 paid, 10,500 left.
    const after = await service().getPaymentLink(id);
    expect(after.requestedAmountCents - after.completedAmountCents).toBe(10_500);
    // Invoice 12,000 (Dr AR / Cr Revenue), memo 1,500 (Dr AR / Cr Fee Income) and its reversal, paid 1,500
    // (Dr clearing / Cr AR): Fee Income back to nothing, 10,500 receivable.
    await expectChanges(stack, before, {
      AccountsReceivable: 10_500,
      ProcessorClearing: 1_500,
      Revenue: -12_000,
    });
    endCase(18);
  });

  it('19: a link lowered and then raised above its first amount: the discount taken back, only the rest new revenue; paid, every document at 0', async () => {
    await startCase();
    const id = await link('CASE19-LOWERED-RAISED', 10_000);
    await stack.cli(['link', 'sync', id]);
    await step('the invoice', has(`invoice:${id}`), [id]);
    await service().updatePaymentLink(id, { requestedAmountCents: 8_000 });
    await stack.cli(['link', 'sync', id]);
    await step('the lowering', has(`invoice-adjustment:${id}:1`), [id]);
    await service().updatePaymentLink(id, { requestedAmountCents: 11_000 });
    await stack.cli(['link', 'sync', id]);
    await step('the raise', all(has(`invoice-adjustment:${id}:2`), has(`invoice-adjustment:${id}:3`)), [id]);
    // Invoice 10,000, lowered 2,000 (Dr Discounts and Write-offs / Cr AR), raised 3,000: 2,000 taken back
    // (Dr AR / Cr Discounts and Write-offs) and 1,000 more sold (Dr AR / Cr Revenue).
    await expectChanges(stack, before, { AccountsReceivable: 11_000, Revenue: -11_000 });
    const payment = await payAch(id);
    await step('the payment', has(`payment:${payment}`), [id]);
    await expectChanges(stack, before, { ProcessorClearing: 11_000, Revenue: -11_000 });
    endCase(19);
  });

  it('20: a debit memo paid and then voided in the same month: the paid charge stays, a correction takes the fee back and leaves the customer its credit', async () => {
    await startCase();
    const id = await link('CASE20-PAID-MEMO-VOIDED', 12_000);
    await stack.cli(['link', 'debit-memo', id, '--amount', '1500', '--description', 'rush fee']);
    await step('the invoice and its memo', all(has(`invoice:${id}`), linkHas(id, 'debit-memo:')), [id]);
    const memoId = (await service().getPaymentLink(id)).debitMemos[0]?.id as string;
    const payment = await payAch(id);
    await step('both paid', has(`payment:${payment}`), [id]);
    await stack.cli(['link', 'void-memo', id, memoId]);
    await settled('the void', has(`reversal:debit-memo:${memoId}`));
    // The service: 12,000 asked, 13,500 paid: the customer is owed 1,500.
    const after = await service().getPaymentLink(id);
    expect(after.requestedAmountCents - after.completedAmountCents).toBe(-1_500);
    // Paid, the memo's charge invoice is not voided (QuickBooks and Xero refuse to void a paid invoice): it
    // stays paid, and the correction is a document of its own.
    const qboMemo = qbo
      .all(stack.realmId, 'Invoice')
      .find((d) => markersIn(d.PrivateNote).some((m) => m.key === `debit-memo:${memoId}`));
    expect(qbo.isVoided(stack.realmId, 'Invoice', String(qboMemo?.Id))).toBe(false);
    expect(centsOfAmount(qboMemo?.Balance)).toBe(0);
    // Invoice 12,000 (Dr AR / Cr Revenue), memo 1,500 (Dr AR / Cr Fee Income), paid 13,500 (Dr clearing / Cr
    // AR), the memo reversed (Dr Fee Income / Cr AR): Fee Income back to nothing, the customer's 1,500 credit
    // on Accounts Receivable, in every book.
    await expectChanges(stack, before, {
      AccountsReceivable: -1_500,
      ProcessorClearing: 13_500,
      Revenue: -12_000,
    });
    endCase(20);
  });

  it('after cases 1 to 20, the certificate of their period passes: each object booked once, each target agreeing with the ledger', async () => {
    // From the first of the month the books opened in to the service's day (case 16 moved it days ahead).
    const dates = (await stack.entries()).map((e) => e.date).sort();
    const from = `${(dates[0] as string).slice(0, 7)}-01`;
    const to = await today();
    const run = await stack.cli(['close', '--from', from, '--to', to, '--json']);
    const certificate = JSON.parse(run.stdout) as CloseCertificate;
    expect(certificate.problems).toEqual([]);
    expect(certificate.passes).toBe(true);
    // The cases' objects are all in it, each booked, none orphaned; every target took every entry.
    expect(certificate.counts.objects).toBeGreaterThan(40);
    expect(certificate.counts.orphans).toBe(0);
    expect(certificate.documentCounts.receivables.differ).toBe(0);
    expect(certificate.documentCounts.payables.differ).toBe(0);
  });
});

/** The Rent account's balance in each target (cents, debit positive). */
async function rentBalances(code: string): Promise<Record<string, number>> {
  return {
    tryton: (await stack.tryton.balances([code]))[code] ?? 0,
    quickbooks: qbo.balanceOf(stack.realmId, code),
    xero: xero.balanceOf(stack.tenantId, code),
  };
}
