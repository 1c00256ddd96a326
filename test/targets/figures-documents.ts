import type { AccountRole } from '../../src/targets/account-mapping.js';
import type { TargetDocument } from '../../src/targets/target-port.js';

// The two months of documents, for every target's figures test: January and February 2026 of two
// customers' links, a debit memo, a card fee, a payout, and a vendor's two bills, pushed through the adapter;
// then the target's own figures as of January 31 and February 28 are compared with the hand-computed ones
// below (README of each adapter, "Figures as of a day").
//
// January                                        February
//   01-05 invoice A 100.00 (link A)                02-03 payment of A 40.00 (A paid)
//   01-10 invoice B 250.00 (link B)                02-05 payout pending 50.00 (clearing -> in transit)
//   01-12 bill 1 80.00 (vendor)                    02-10 payment of B 100.00
//   01-15 payment of A 60.00, card fee 2.10        02-12 invoice C 70.00 (link C)
//   01-20 debit memo on B 15.00 (fee income)       02-14 bill 2 45.00
//   01-25 bill payment of bill 1 30.00             02-20 bill payment of bill 1 50.00 (bill 1 paid)

export function figuresDocuments() {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const customer = (n: string) => ({
    serviceId: `cus_${n}_${run}`,
    name: `Figures ${n} ${run}`,
    email: `${n}.${run}@figures.test`,
  });
  const vendor = { serviceId: `ven_${run}`, name: `Figures Vendor ${run}`, email: null };
  const links = {
    A: { paymentLinkId: `plA_${run}`, number: `FA-${run}` },
    B: { paymentLinkId: `plB_${run}`, number: `FB-${run}` },
    C: { paymentLinkId: `plC_${run}`, number: `FC-${run}` },
  };
  const customers = { A: customer('a'), B: customer('b'), C: customer('c') };
  const bills = {
    one: { billId: `bill1_${run}`, number: `V1-${run}` },
    two: { billId: `bill2_${run}`, number: `V2-${run}` },
  };
  let hashes = 0;
  const doc = (
    key: string,
    kind: TargetDocument['kind'],
    date: string,
    cents: number,
    debit: AccountRole,
    credit: AccountRole,
    extra: Partial<TargetDocument>,
  ): TargetDocument => ({
    key,
    kind,
    date,
    description: `${kind} ${key}`,
    amountCents: cents,
    lines: [
      { role: debit, amountCents: cents },
      { role: credit, amountCents: -cents },
    ],
    contentHash: (hashes++).toString(16).padStart(64, '0'),
    ...extra,
  });
  const onLink = (l: keyof typeof links) => ({ invoice: links[l], customer: customers[l] });
  const onBill = (b: keyof typeof bills) => ({ bill: bills[b], vendor });
  const invoice = (l: keyof typeof links, date: string, cents: number) =>
    doc(`invoice:${links[l].paymentLinkId}`, 'invoice', date, cents, 'AccountsReceivable', 'Revenue', {
      ...onLink(l),
      reference: links[l].paymentLinkId,
    });
  const payment = (id: string, l: keyof typeof links, date: string, cents: number) =>
    doc(`payment:${id}_${run}`, 'payment', date, cents, 'ProcessorClearing', 'AccountsReceivable', {
      ...onLink(l),
      reference: `${id}_${run}`,
    });
  const bill = (b: keyof typeof bills, date: string, cents: number) =>
    doc(`bill:${bills[b].billId}`, 'bill', date, cents, 'BillExpenses', 'AccountsPayable', {
      ...onBill(b),
      reference: bills[b].billId,
    });
  const billPayment = (id: string, b: keyof typeof bills, date: string, cents: number) =>
    doc(
      `bill-payment-sent:${id}_${run}`,
      'bill-payment-sent',
      date,
      cents,
      'AccountsPayable',
      'OutgoingPaymentsClearing',
      { ...onBill(b), reference: `${id}_${run}` },
    );
  const january: TargetDocument[] = [
    invoice('A', '2026-01-05', 100_00),
    invoice('B', '2026-01-10', 250_00),
    bill('one', '2026-01-12', 80_00),
    payment('pa1', 'A', '2026-01-15', 60_00),
    doc(`payment-fee:pa1_${run}`, 'payment-fee', '2026-01-15', 2_10, 'ProcessingFees', 'ProcessorClearing', {
      ...onLink('A'),
      reference: `pa1_${run}`,
    }),
    doc(`debit-memo:dm1_${run}`, 'debit-memo', '2026-01-20', 15_00, 'AccountsReceivable', 'FeeIncome', {
      ...onLink('B'),
      reference: `dm1_${run}`,
    }),
    billPayment('bp1', 'one', '2026-01-25', 30_00),
  ];
  const february: TargetDocument[] = [
    payment('pa2', 'A', '2026-02-03', 40_00),
    doc(
      `disbursement-pending:po1_${run}`,
      'disbursement-pending',
      '2026-02-05',
      50_00,
      'PayoutsInTransit',
      'ProcessorClearing',
      { reference: `po1_${run}` },
    ),
    payment('pb1', 'B', '2026-02-10', 100_00),
    invoice('C', '2026-02-12', 70_00),
    bill('two', '2026-02-14', 45_00),
    billPayment('bp2', 'one', '2026-02-20', 50_00),
  ];
  return { run, links, bills, january, february, invoiceC: february[3] as TargetDocument };
}

/** The hand-computed figures as of January 31 (every role not listed is 0). */
export function januaryFigures(f: ReturnType<typeof figuresDocuments>) {
  return {
    asOf: '2026-01-31',
    balances: {
      AccountsReceivable: 305_00, // 100 + 250 - 60 + 15
      Revenue: -350_00,
      FeeIncome: -15_00,
      ProcessorClearing: 57_90, // 60 - 2.10
      ProcessingFees: 2_10,
      AccountsPayable: -50_00, // -80 + 30
      BillExpenses: 80_00,
      OutgoingPaymentsClearing: -30_00,
    },
    openInvoices: {
      [f.links.A.paymentLinkId]: 40_00,
      [f.links.B.paymentLinkId]: 265_00, // the invoice 250 and its debit memo 15
    },
    openBills: { [f.bills.one.billId]: 50_00 },
  };
}

/** The hand-computed figures as of February 28. */
export function februaryFigures(f: ReturnType<typeof figuresDocuments>) {
  return {
    asOf: '2026-02-28',
    balances: {
      AccountsReceivable: 235_00, // 305 - 40 - 100 + 70
      Revenue: -420_00,
      FeeIncome: -15_00,
      ProcessorClearing: 147_90, // 57.90 + 40 + 100 - 50
      PayoutsInTransit: 50_00,
      ProcessingFees: 2_10,
      AccountsPayable: -45_00, // -50 - 45 + 50
      BillExpenses: 125_00,
      OutgoingPaymentsClearing: -80_00,
    },
    openInvoices: {
      [f.links.B.paymentLinkId]: 165_00, // 250 - 100 + 15
      [f.links.C.paymentLinkId]: 70_00,
    },
    openBills: { [f.bills.two.billId]: 45_00 },
  };
}

/** Every role at 0 but those given: what figuresAsOf() reports for a chart that has all of booksync's accounts. */
export function withZeros(balances: Partial<Record<AccountRole, number>>, roles: readonly AccountRole[]) {
  return Object.fromEntries(roles.map((r) => [r, balances[r] ?? 0]));
}
