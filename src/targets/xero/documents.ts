import { keyVersion } from '../../ledger/entry-key.js';
import type { AccountRole } from '../account-mapping.js';
import { closedPeriodNote } from '../closed-periods.js';
import { centsToAmount } from '../decimal-amounts.js';
import { dueDateOf } from '../documents.js';
import { TargetRefusedError } from '../errors.js';
import { marker } from '../markers.js';
import { withOwnerNote } from '../target-figures.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import { processor, unnamedCustomer } from './contacts.js';
import type { XeroContext } from './context.js';
import { numberInvoice } from './invoice-numbers.js';
import { numberTag } from './keys.js';
import { billNumber, earlier } from './look-ups.js';
import { type PaymentPart, partReference, partsOf } from './payment-parts.js';
import { type Plan, pairOf } from './records.js';
import { withBusinessReference } from './references.js';
import { withTaxType } from './tax-rates.js';

// Which Xero document a ledger entry becomes, and its body (README, "What appears in Xero").

export function invoiceName(doc: TargetDocument): string {
  const name = doc.invoice?.number ?? numberTag(doc.key);
  const version = keyVersion(doc.key);
  return version > 1 ? `${name}#${version}` : name;
}

/** The document's plan, its lines in booksync's tax type (tax-rates.ts `withTaxType`). */
export async function planDocument(
  ctx: XeroContext,
  doc: TargetDocument,
  context: PushContext,
  asCredit = false,
): Promise<Plan | { found: PushResult }> {
  const plan = await untaxedPlan(ctx, doc, context, asCredit);
  if ('found' in plan) return plan;
  return taxed(ctx, plan);
}

export async function taxed(ctx: XeroContext, plan: Plan): Promise<Plan> {
  return { ...plan, body: withTaxType(plan.body, await ctx.taxTypes.taxType()) };
}

type Pair = NonNullable<ReturnType<typeof pairOf>>;

/**
 * `asCredit`: a payment is booked as the customer's credit (an overpayment) instead of against the invoice,
 * when Xero refused it there (see overpaidRefusal).
 */
async function untaxedPlan(
  ctx: XeroContext,
  doc: TargetDocument,
  context: PushContext,
  asCredit = false,
): Promise<Plan | { found: PushResult }> {
  const pair = pairOf(doc.lines);
  switch (doc.kind) {
    case 'invoice': {
      if (pair?.debit !== 'AccountsReceivable') return journal(ctx, doc);
      const numbered = await numberInvoice(ctx, doc, invoiceName(doc));
      if ('found' in numbered) return numbered;
      return salesInvoice(ctx, doc, numbered.number, pair.credit);
    }
    // A charge invoice of its own: the original may be paid already, and only an invoice's AmountDue says
    // what the customer owes again.
    case 'debit-memo':
    case 'refund-reopen':
      if (pair?.debit !== 'AccountsReceivable') return journal(ctx, doc);
      return salesInvoice(ctx, doc, numberTag(doc.key), pair.credit);
    case 'invoice-adjustment': {
      if (pair?.debit === 'AccountsReceivable')
        return salesInvoice(ctx, doc, numberTag(doc.key), pair.credit);
      if (pair?.credit !== 'AccountsReceivable') return journal(ctx, doc);
      return creditNote(ctx, doc, pair.debit);
    }
    case 'payment':
    case 'external-payment':
    case 'check-application': {
      if (pair?.credit !== 'AccountsReceivable') return moneyMove(ctx, doc);
      return customerPayment(ctx, doc, pair, context, asCredit);
    }
    case 'bill': {
      if (pair?.credit !== 'AccountsPayable') return journal(ctx, doc);
      return vendorBill(ctx, doc, pair.debit);
    }
    // Balances brought forward, not money moved that day: a journal (a bank transaction would need a party).
    case 'opening-balances':
      return journal(ctx, doc);
    case 'bill-payment-sent': {
      if (pair?.debit !== 'AccountsPayable' || !doc.bill) return moneyMove(ctx, doc);
      const bill = await earlier(ctx, `bill:${doc.bill.billId}`, context);
      if (bill?.entity !== 'Invoice' || !(await ctx.accounts.takesPayments(pair.credit)))
        return journal(ctx, doc);
      return payment(ctx, doc, bill.id, pair.credit);
    }
    default:
      return moneyMove(ctx, doc);
  }
}

/** The one line of an invoice, a credit note or a bill: `cents` on the account of code `accountCode`. */
export const oneLine = (description: string, cents: number, accountCode: string) => [
  { description, quantity: 1, unitAmount: centsToAmount(cents), accountCode },
];

/** An ACCREC invoice for the customer, its one line on `credit`. */
async function salesInvoice(
  ctx: XeroContext,
  doc: TargetDocument,
  number: string,
  credit: AccountRole,
): Promise<Plan> {
  const mark = marker(doc.key, doc.contentHash);
  return {
    entity: 'Invoice',
    body: {
      type: 'ACCREC',
      contact: { contactID: await ctx.contacts.id(doc.customer ?? unnamedCustomer) },
      date: doc.date,
      dueDate: dueDateOf(doc),
      invoiceNumber: number,
      // A charge invoice's key does not name its link: noted, so Xero's aged receivables attribute it.
      reference: doc.kind !== 'invoice' ? withOwnerNote(mark, doc.invoice) : mark,
      status: 'AUTHORISED',
      lineItems: oneLine(doc.description, doc.amountCents, ctx.accounts.code(credit)),
    },
  };
}

/** A lowered invoice: an ACCRECCREDIT credit note for the customer, its line on `debit` (allocations.ts). */
async function creditNote(ctx: XeroContext, doc: TargetDocument, debit: AccountRole): Promise<Plan> {
  return {
    entity: 'CreditNote',
    body: {
      type: 'ACCRECCREDIT',
      contact: { contactID: await ctx.contacts.id(doc.customer ?? unnamedCustomer) },
      date: doc.date,
      reference: marker(doc.key, doc.contentHash),
      status: 'AUTHORISED',
      lineItems: oneLine(doc.description, doc.amountCents, ctx.accounts.code(debit)),
    },
  };
}

/** A customer's money for the receivable: a Payment against the invoice it settles, else their credit. */
async function customerPayment(
  ctx: XeroContext,
  doc: TargetDocument,
  pair: Pair,
  context: PushContext,
  asCredit: boolean,
): Promise<Plan> {
  // The one document the money settles (several: pushParts), as the ledger applied it; money with no
  // split (booked before applications) goes to the link's invoice, as before.
  const [only] = partsOf(doc) ?? [];
  const settles = only ? only.settles : doc.invoice ? `invoice:${doc.invoice.paymentLinkId}` : null;
  const invoice = settles && !asCredit ? await earlier(ctx, settles, context) : null;
  if (invoice?.entity === 'Invoice' && (await ctx.accounts.takesPayments(pair.debit)))
    return payment(ctx, doc, invoice.id, pair.debit);
  // No invoice to apply it to (a reusable link's payment, money beyond all the link owes): an
  // overpayment, the customer's credit.
  if (await ctx.accounts.isBank(pair.debit))
    return overpayment(ctx, doc, pair.debit, doc.amountCents, marker(doc.key, doc.contentHash));
  return journal(ctx, doc);
}

/**
 * A vendor's bill: an ACCPAY invoice, its marker in its first line (Xero keeps Reference for sales). A bill
 * owed when the books opened has its line on the Opening Balances (equity) account, as the opening invoice.
 */
async function vendorBill(ctx: XeroContext, doc: TargetDocument, debit: AccountRole): Promise<Plan> {
  if (!doc.vendor) throw new TargetRefusedError(ctx.name, `bill ${doc.key} has no vendor`);
  return {
    entity: 'Invoice',
    body: {
      type: 'ACCPAY',
      contact: { contactID: await ctx.contacts.id(doc.vendor) },
      date: doc.date,
      dueDate: dueDateOf(doc),
      invoiceNumber: billNumber(doc),
      status: 'AUTHORISED',
      lineItems: oneLine(
        `${doc.description}; ${marker(doc.key, doc.contentHash)}`,
        doc.amountCents,
        // The vendor's own expense account when VENDOR_EXPENSE_ACCOUNTS names it (accounts.ts).
        ctx.accounts.code(debit, doc.vendor.serviceId),
      ),
    },
  };
}

/** A Payment of `part` (the whole document when null) against one invoice. */
export function payment(
  ctx: XeroContext,
  doc: TargetDocument,
  invoiceId: string,
  account: AccountRole,
  part: PaymentPart | null = null,
): Plan {
  // A payment has no line text: one dated out of a locked period keeps its own date after its marker.
  return {
    entity: 'Payment',
    body: {
      invoice: { invoiceID: invoiceId },
      account: { code: ctx.accounts.code(account) },
      date: doc.date,
      amount: centsToAmount(part?.cents ?? doc.amountCents),
      reference: withBusinessReference(
        doc,
        partReference(marker(doc.key, doc.contentHash), part, closedPeriodNote(doc) ?? ''),
      ),
    },
  };
}

/** The customer's credit: a RECEIVE-OVERPAYMENT bank transaction into `bank`. */
export async function overpayment(
  ctx: XeroContext,
  doc: TargetDocument,
  bank: AccountRole,
  cents: number,
  reference: string,
): Promise<Plan> {
  return {
    entity: 'BankTransaction',
    body: {
      type: 'RECEIVE-OVERPAYMENT',
      contact: { contactID: await ctx.contacts.id(doc.customer ?? unnamedCustomer) },
      bankAccount: { code: ctx.accounts.code(bank) },
      date: doc.date,
      // The credit of a link's money noted with its link (after the marker and its part), as a charge invoice.
      reference: withBusinessReference(doc, withOwnerNote(reference, doc.invoice)),
      // The customer's credit, its line on no revenue or expense account: no tax type, NoTax.
      lineAmountTypes: 'NoTax',
      lineItems: [{ description: doc.description, lineAmount: centsToAmount(cents) }],
    },
  };
}

/**
 * Money between accounts: two bank accounts are a BankTransfer (clearing to in-transit to bank, checks
 * cleared, a bill payment cashed); a bank account and another (not the receivable or payable) a
 * BankTransaction, SPEND (the absorbed card fee to the processor, a refund to the customer) or RECEIVE (a
 * sale with no invoice, Xero's receive money: into the clearing account, its line on Revenue); anything
 * else a ManualJournal.
 */
export async function moneyMove(ctx: XeroContext, doc: TargetDocument): Promise<Plan> {
  const pair = pairOf(doc.lines);
  if (!pair) return journal(ctx, doc);
  const amount = centsToAmount(doc.amountCents);
  const mark = marker(doc.key, doc.contentHash);
  const [debitBank, creditBank] = [
    await ctx.accounts.isBank(pair.debit),
    await ctx.accounts.isBank(pair.credit),
  ];
  const ledgerOnly = new Set<AccountRole>(['AccountsReceivable', 'AccountsPayable']);
  if (debitBank && creditBank) {
    return {
      entity: 'BankTransfer',
      body: {
        fromBankAccount: { code: ctx.accounts.code(pair.credit) },
        toBankAccount: { code: ctx.accounts.code(pair.debit) },
        amount,
        date: doc.date,
        reference: withBusinessReference(doc, mark),
      },
    };
  }
  if ((debitBank || creditBank) && !ledgerOnly.has(debitBank ? pair.credit : pair.debit)) {
    // A sale is received from its customer (one unnamed when there is none), a fee paid to the processor; a
    // deposited check names no customer until it is applied.
    const party =
      doc.kind === 'payment-fee'
        ? processor
        : doc.kind === 'sale' || doc.kind === 'check-deposited'
          ? (doc.customer ?? unnamedCustomer)
          : (doc.customer ?? doc.vendor ?? processor);
    return {
      entity: 'BankTransaction',
      body: {
        type: debitBank ? 'RECEIVE' : 'SPEND',
        contact: { contactID: await ctx.contacts.id(party) },
        bankAccount: { code: ctx.accounts.code(debitBank ? pair.debit : pair.credit) },
        date: doc.date,
        reference: withBusinessReference(doc, mark),
        lineItems: [
          {
            description: doc.description,
            quantity: 1,
            unitAmount: amount,
            accountCode: ctx.accounts.code(debitBank ? pair.credit : pair.debit),
          },
        ],
      },
    };
  }
  return journal(ctx, doc);
}

/** The entry's lines as a manual journal (Xero: positive LineAmount debits, negative credits). */
export function journal(ctx: XeroContext, doc: TargetDocument): Plan {
  return {
    entity: 'ManualJournal',
    body: {
      narration: `${marker(doc.key, doc.contentHash)} ${doc.description}`,
      date: doc.date,
      // Balances moved between accounts, no sale: no tax on any line.
      lineAmountTypes: 'NoTax',
      status: 'POSTED',
      journalLines: doc.lines.map((l) => ({
        accountCode: ctx.accounts.code(l.role),
        lineAmount: centsToAmount(l.amountCents),
        description: doc.description,
      })),
    },
  };
}
