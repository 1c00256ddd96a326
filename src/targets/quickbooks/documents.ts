import { createHash } from 'node:crypto';
import type { AccountRole } from '../account-mapping.js';
import { closedPeriodNote } from '../closed-periods.js';
import { centsToAmount } from '../decimal-amounts.js';
import { dueDateOf } from '../documents.js';
import { ownerNote } from '../target-figures.js';
import type { DocumentLine, Party, TargetDocument } from '../target-port.js';
import type { AccountDirectory, Ref } from './accounts.js';
import type { ItemDirectory } from './items.js';
import { docNumberTag, marker } from './keys.js';
import type { PartyDirectory } from './parties.js';
import type { SalesTaxCode } from './tax-codes.js';

// Which QBO document each ledger entry becomes, and its JSON body (README "What appears in QuickBooks"):
// - invoice -> Invoice for the customer, DocNumber = the link's name, one line per credited income role
//   (through booksync's items), so the accountant's invoice list matches the service's links;
// - debit-memo, refund-reopen -> a charge Invoice of its own (a line cannot be added to an invoice that may be
//   paid);
// - payment, external-payment, check-application -> Payment applied (LinkedTxn) to the invoice, deposited to
//   the mapped clearing account (Undeposited Funds by default) or checks account, PaymentRefNum = the
//   service's payment / check reference; a deposited check's credit applied (Dr Unapplied Cash, a liability
//   no Payment deposits to) -> that Payment deposited to Checks To Deposit plus a JournalEntry Dr Unapplied
//   Cash / Cr Checks To Deposit (unappliedCashTransfer), netting the ledger's entry;
// - sale (a payment that settles no invoice) -> SalesReceipt deposited to the clearing account, through the
//   Revenue item, for the customer when there is one (Intuit: a sales receipt records a sale paid in full);
// - refund -> RefundReceipt for the customer, refunded from the clearing account, through the Refunds item;
// - disbursement-pending/-paid, check-cleared -> Deposit into the debited account from the credited one;
// - bill -> Bill for the vendor (DocNumber = the vendor's invoice number, else the key's tag); a bill owed when
//   the books opened (Dr Opening Balances) is the same Bill, its line on Opening Balance Equity, as QuickBooks
//   takes a vendor's opening balance; bill-payment-sent -> BillPayment
//   (check) against the bill from the outgoing-payments clearing account (a Bank-type account in QBO);
// - payment-fee -> JournalEntry: a Purchase must be paid from a bank or card account, and the fee is taken
//   from the processor's clearing (Undeposited Funds), which QBO does not allow there;
// - invoice-adjustment lowering the link (Dr the write-off's role / Cr A/R) -> CreditMemo for the invoice's
//   customer, its line through booksync's item of the debited role, then applied to the link's invoice by a
//   zero-amount Payment linking both (QuickBooks' way to apply a credit memo), so the invoice's Balance is
//   the service's remainder; raising the link is a charge Invoice of its own, as a debit memo;
// - everything else (bill-payment-paid, ...) and any entry whose lines are not
//   the native document's shape -> JournalEntry with the entry's own lines; A/R and A/P lines name the
//   customer or vendor, as QBO requires.
// Every body carries the marker (key and content hash) in PrivateNote and, unless it has its own number, the
// key's DocNumber tag. The business's own reference of the money (TargetDocument.businessReference)
// goes where QuickBooks' bank matching and its "ref no." search look: a Payment's PaymentRefNum (the
// external payment's or check application's reference, else the deposit's transfer id), a Deposit's
// DocNumber (the payout id, the check deposit's transfer id), a BillPayment's DocNumber (the vendor check's
// number, QuickBooks' "Check no."). Those fields hold 21 characters (referenceField): a longer reference is
// cut to its first 21 there and written whole in PrivateNote after the marker, never refused. Every sales line (Invoice, SalesReceipt, RefundReceipt; a CreditMemo's when booksync
// makes one) carries the non-taxable TaxCodeRef of QBO_TAX_CODE (tax-codes.ts), so a company on automated
// sales tax adds none: the service's amount is the document's total.

export type Plan = { entity: string; body: Record<string, unknown> };

/** QBO's length of DocNumber and PaymentRefNum (Finance.xsd: "The maximum length for DocNumber is 21"). */
export const REFERENCE_FIELD_LENGTH = 21;

/** The business's reference as a 21-character field takes it: its first 21 characters; null when none. */
export function referenceField(doc: TargetDocument): string | null {
  return doc.businessReference ? doc.businessReference.slice(0, REFERENCE_FIELD_LENGTH) : null;
}

/** A BillPayment's DocNumber: the vendor check's number, else the key's tag (how find() looks it up). */
export function billPaymentNumber(doc: TargetDocument): string {
  return referenceField(doc) ?? docNumberTag(doc.key);
}

/** The invoice number for a link name: QBO allows 21 characters; longer names keep 16 and a digest. */
export function invoiceNumber(name: string): string {
  if (name.length <= 21) return name;
  return `${name.slice(0, 16)}-${createHash('sha256').update(name).digest('hex').slice(0, 4)}`;
}

/** The part tag on the journal that moves an applied check's credit out of Unapplied Cash. */
export const TRANSFER_PART = 'part=unapplied-cash';

/** That journal's DocNumber: the tag of its entry's key and its part, found by it. */
export function transferTag(key: string): string {
  return docNumberTag(`${key} ${TRANSFER_PART}`);
}

/** Whether a record's note carries `key`'s marker on its Unapplied Cash journal (TRANSFER_PART after it). */
export function isTransferOf(note: unknown, key: string): boolean {
  if (typeof note !== 'string') return false;
  return note
    .split('\n')
    .some((l) => l.startsWith(`booksync key=${key} hash=`) && l.endsWith(` ${TRANSFER_PART}`));
}

/** A link without a customer still needs one in QBO. */
export const unnamedCustomer: Party = {
  serviceId: 'no-customer',
  name: 'booksync unnamed customer',
  email: null,
};

/** An A/P journal line without a vendor still needs one: QBO requires a vendor on every A/P line. */
export const unnamedVendor: Party = {
  serviceId: 'no-vendor',
  name: 'booksync unnamed vendor',
  email: null,
};

/** A bill's DocNumber: the vendor's invoice number, or the key's tag when the vendor gave none. */
export function billNumber(doc: TargetDocument): string {
  return doc.bill?.number ? invoiceNumber(doc.bill.number) : docNumberTag(doc.key);
}

/**
 * A transaction at QBO that a payout deposits (a payment, sales receipt, refund receipt, or a journal's line
 * named by `txnLineId`), with the amount it put in Undeposited Funds (negative: what it took out).
 */
export interface LinkedReceipt {
  txnId: string;
  txnType: 'Payment' | 'SalesReceipt' | 'RefundReceipt' | 'JournalEntry';
  txnLineId: string;
  amountCents: number;
}

export interface Pair {
  debit: AccountRole;
  credit: AccountRole;
  cents: number;
}

/** Dr one role / Cr another for the same amount: the shape every native document has. */
export function pairOf(lines: DocumentLine[]): Pair | null {
  const live = lines.filter((l) => l.amountCents !== 0);
  const [a, b] = live;
  if (live.length !== 2 || !a || !b || a.amountCents + b.amountCents !== 0) return null;
  const [debit, credit] = a.amountCents > 0 ? [a, b] : [b, a];
  return { debit: debit.role, credit: credit.role, cents: debit.amountCents };
}

/** PaymentRefNum: the business's reference, else the service object's id; both within 21 characters. */
function paymentRefNum(doc: TargetDocument): { PaymentRefNum?: string } {
  const ref = referenceField(doc) ?? doc.reference?.slice(0, REFERENCE_FIELD_LENGTH);
  return ref ? { PaymentRefNum: ref } : {};
}

/**
 * A Deposit's DocNumber: the payout id or the check deposit's transfer id, what the bank line shows; the
 * key's tag otherwise. Deposits are found by date and marker, never by DocNumber (QBO does not filter it).
 */
function depositNumber(doc: TargetDocument): { DocNumber?: string } {
  const ref = referenceField(doc);
  return ref ? { DocNumber: ref } : {};
}

export class DocumentMapper {
  private readonly accounts: AccountDirectory;
  private readonly items: ItemDirectory;
  private readonly parties: PartyDirectory;
  private readonly taxCode: SalesTaxCode;
  constructor(
    accounts: AccountDirectory,
    items: ItemDirectory,
    parties: PartyDirectory,
    taxCode: SalesTaxCode,
  ) {
    this.accounts = accounts;
    this.items = items;
    this.parties = parties;
    this.taxCode = taxCode;
  }

  /** A sales line through booksync's item of the role, tax-free (QBO_TAX_CODE on SalesItemLineDetail). */
  private async salesLine(doc: TargetDocument, role: AccountRole, cents: number) {
    const amount = centsToAmount(cents);
    return {
      Amount: amount,
      Description: doc.description,
      DetailType: 'SalesItemLineDetail',
      SalesItemLineDetail: {
        ItemRef: await this.items.ref(role),
        Qty: 1,
        UnitPrice: amount,
        TaxCodeRef: await this.taxCode.ref(),
      },
    };
  }

  common(doc: TargetDocument, numbered = true): Record<string, unknown> {
    // A document dated out of the closed books keeps its own date in its memo (a payment has no line text).
    const note = closedPeriodNote(doc);
    // A reference cut to fit PaymentRefNum / DocNumber is kept whole in the memo.
    const cut =
      doc.businessReference && doc.businessReference.length > REFERENCE_FIELD_LENGTH
        ? `reference ${doc.businessReference}`
        : null;
    return {
      TxnDate: doc.date,
      PrivateNote: [marker(doc.key, doc.contentHash), note, cut].filter((t) => t).join('\n'),
      ...(numbered ? { DocNumber: docNumberTag(doc.key) } : {}),
    };
  }

  /**
   * Invoice (and the charge invoice of a debit memo, or of a payment reversed after close): Dr A/R, Cr the
   * credited roles through booksync's items; the customer given, else the document's.
   */
  async invoice(doc: TargetDocument, docNumber: string, customer?: Ref): Promise<Plan | null> {
    const debits = doc.lines.filter((l) => l.amountCents > 0);
    if (debits.length !== 1 || debits[0]?.role !== 'AccountsReceivable') return null;
    const lines = [];
    for (const line of doc.lines.filter((l) => l.amountCents < 0))
      lines.push(await this.salesLine(doc, line.role, -line.amountCents));
    const common = this.common(doc, false);
    // A charge invoice's key does not name its link: the link is noted, so QBO's aging attributes it.
    if (doc.invoice && doc.kind !== 'invoice')
      common.PrivateNote = `${common.PrivateNote}\n${ownerNote(doc.invoice)}`;
    return {
      entity: 'Invoice',
      body: {
        ...common,
        DocNumber: docNumber,
        DueDate: dueDateOf(doc),
        CustomerRef: customer ?? (await this.parties.ref('Customer', doc.customer ?? unnamedCustomer)),
        Line: lines,
      },
    };
  }

  /**
   * A Payment of the whole amount, applied to the invoices it settles (one line each, LinkedTxn): what is
   * left unapplied (TotalAmt over the lines) is the customer's credit, as QuickBooks keeps an unapplied
   * payment.
   */
  async payment(
    doc: TargetDocument,
    pair: Pair,
    applied: readonly { invoiceId: string; cents: number }[],
    customer: Ref,
  ): Promise<Plan> {
    return {
      entity: 'Payment',
      body: {
        ...this.common(doc),
        CustomerRef: customer,
        TotalAmt: centsToAmount(pair.cents),
        DepositToAccountRef: await this.accounts.ref(pair.debit),
        // The business's reference (a check number, a transfer id), else the service's payment id.
        ...paymentRefNum(doc),
        Line: applied.map((a) => ({
          Amount: centsToAmount(a.cents),
          LinkedTxn: [{ TxnId: a.invoiceId, TxnType: 'Invoice' }],
        })),
      },
    };
  }

  /**
   * A sale paid at once (a reusable link's payment, a payment on no link): a SalesReceipt deposited to the
   * debited account (DepositToAccountRef: "Supported for Payment and SalesReceipt only", Finance.xsd), its
   * line through booksync's item of the credited income role, tax-free as invoices' lines; the customer
   * when known (CustomerRef is optional on a sales receipt).
   */
  /**
   * A lowered invoice's credit (a write-off, a discount): a CreditMemo for the invoice's customer, its line
   * through booksync's item of the debited role (QBO posts it Dr that item's income account / Cr A/R), no tax
   * added, as for invoices; numbered with the key's DocNumber tag and found by it.
   */
  async creditMemo(doc: TargetDocument, pair: Pair, customer: Ref): Promise<Plan> {
    return {
      entity: 'CreditMemo',
      body: {
        ...this.common(doc),
        CustomerRef: customer,
        // A sales line like the invoice's, with its non-taxable code: the credit takes back no tax.
        Line: [await this.salesLine(doc, pair.debit, pair.cents)],
      },
    };
  }

  /**
   * A credit memo applied to invoices as QuickBooks applies one ("Receive payment" with the credit ticked):
   * a Payment of TotalAmt 0 for the customer whose lines link each invoice for its part and the credit memo
   * for their sum (LinkedTxn TxnType Invoice / CreditMemo): the invoices' Balance and the memo's drop by it,
   * and no money moves. It carries the adjustment's marker and says what it links.
   */
  creditApplication(
    doc: TargetDocument,
    invoices: readonly { invoiceId: string; cents: number }[],
    creditMemoId: string,
    customer: Ref,
  ): Plan {
    const total = invoices.reduce((sum, i) => sum + i.cents, 0);
    const common = this.common(doc, false);
    const names = invoices.map((i) => i.invoiceId).join(', ');
    return {
      entity: 'Payment',
      body: {
        ...common,
        PrivateNote: `${common.PrivateNote}\napplies credit memo ${creditMemoId} to invoice ${names}`,
        CustomerRef: customer,
        TotalAmt: 0,
        Line: [
          ...invoices.map((i) => ({
            Amount: centsToAmount(i.cents),
            LinkedTxn: [{ TxnId: i.invoiceId, TxnType: 'Invoice' }],
          })),
          { Amount: centsToAmount(total), LinkedTxn: [{ TxnId: creditMemoId, TxnType: 'CreditMemo' }] },
        ],
      },
    };
  }

  async salesReceipt(doc: TargetDocument, pair: Pair, customer: Ref | null): Promise<Plan> {
    return {
      entity: 'SalesReceipt',
      body: {
        ...this.common(doc),
        ...(customer ? { CustomerRef: customer } : {}),
        DepositToAccountRef: await this.accounts.ref(pair.debit),
        ...paymentRefNum(doc),
        Line: [await this.salesLine(doc, pair.credit, pair.cents)],
      },
    };
  }

  async refund(doc: TargetDocument, pair: Pair, customer: Ref): Promise<Plan> {
    return {
      entity: 'RefundReceipt',
      body: {
        ...this.common(doc),
        CustomerRef: customer,
        DepositToAccountRef: await this.accounts.ref(pair.credit),
        ...paymentRefNum(doc),
        Line: [await this.salesLine(doc, pair.debit, pair.cents)],
      },
    };
  }

  /**
   * A payout taken out of the clearing account (Undeposited Funds): a Deposit that links every transaction
   * the payout carries there (`LinkedTxn`, as a bank deposit made in QBO does, so each leaves the list of
   * funds to deposit and cannot be deposited twice): payments and sales receipts for their amount, refund
   * receipts and fee journals' clearing lines for the negative amount they took out (payout-links.ts). A
   * linked line carries no DepositLineDetail: with one, QBO asks its AccountRef (2020), and the link already
   * says where the money comes from. One line on the clearing account only for what has no QBO transaction
   * of its own (a receipt from before the books opened, a return netted), so the deposit equals the payout.
   */
  async payoutDeposit(doc: TargetDocument, pair: Pair, linked: readonly LinkedReceipt[]): Promise<Plan> {
    const linkedCents = linked.reduce((sum, r) => sum + r.amountCents, 0);
    const rest = pair.cents - linkedCents;
    return this.depositOf(doc, pair, async (creditLine) => [
      ...linked.map((r) => ({
        Amount: centsToAmount(r.amountCents),
        LinkedTxn: [{ TxnId: r.txnId, TxnType: r.txnType, TxnLineId: r.txnLineId }],
      })),
      ...(rest !== 0 ? [await creditLine(rest, 'Netted in this payout, not held in QuickBooks')] : []),
    ]);
  }

  async deposit(doc: TargetDocument, pair: Pair): Promise<Plan> {
    return this.depositOf(doc, pair, async (creditLine) => [await creditLine(pair.cents, doc.description)]);
  }

  /**
   * A Deposit into the pair's debit account with the lines `lines` gives; `creditLine` makes a line on the
   * pair's credit account. The debit account is looked up first, then the credit account (as lines need it).
   */
  private async depositOf(
    doc: TargetDocument,
    pair: Pair,
    lines: (
      creditLine: (cents: number, description: string) => Promise<Record<string, unknown>>,
    ) => Promise<Record<string, unknown>[]>,
  ): Promise<Plan> {
    const common = { ...this.common(doc), ...depositNumber(doc) };
    const DepositToAccountRef = await this.accounts.ref(pair.debit);
    const creditLine = async (cents: number, description: string) => ({
      Amount: centsToAmount(cents),
      Description: description,
      DetailType: 'DepositLineDetail',
      DepositLineDetail: { AccountRef: await this.accounts.ref(pair.credit) },
    });
    return { entity: 'Deposit', body: { ...common, DepositToAccountRef, Line: await lines(creditLine) } };
  }

  /** A bill; a bill payment's reversal after close names the paid bill's vendor and its key's tag. */
  async bill(
    doc: TargetDocument,
    pair: Pair,
    vendor: Party | null,
    vendorRef?: Ref,
    docNumber = billNumber(doc),
  ): Promise<Plan> {
    const common = this.common(doc);
    // A bill payment's reversal after close is a bill of its own: the bill it reopens is noted.
    if (doc.bill && doc.kind !== 'bill') common.PrivateNote = `${common.PrivateNote}\n${ownerNote(doc.bill)}`;
    return {
      entity: 'Bill',
      body: {
        ...common,
        DocNumber: docNumber,
        VendorRef: vendorRef ?? (await this.parties.ref('Vendor', vendor ?? unnamedVendor)),
        DueDate: dueDateOf(doc),
        Line: [
          {
            Amount: centsToAmount(pair.cents),
            Description: doc.description,
            DetailType: 'AccountBasedExpenseLineDetail',
            // The vendor's own expense account when VENDOR_EXPENSE_ACCOUNTS names it (accounts.ts).
            AccountBasedExpenseLineDetail: {
              AccountRef: await this.accounts.ref(pair.debit, vendor?.serviceId),
            },
          },
        ],
      },
    };
  }

  async billPayment(doc: TargetDocument, pair: Pair, billId: string, vendor: Ref): Promise<Plan> {
    const amount = centsToAmount(pair.cents);
    return {
      entity: 'BillPayment',
      body: {
        ...this.common(doc),
        // QuickBooks' "Check no." of a check bill payment; found again by it or by the key's tag.
        DocNumber: billPaymentNumber(doc),
        VendorRef: vendor,
        PayType: 'Check',
        CheckPayment: { BankAccountRef: await this.accounts.ref(pair.credit) },
        TotalAmt: amount,
        Line: [{ Amount: amount, LinkedTxn: [{ TxnId: billId, TxnType: 'Bill' }] }],
      },
    };
  }

  /**
   * The second document of a deposited check's credit applied to an invoice (its first: a Payment from Checks
   * To Deposit, which QBO applies to the invoice): a JournalEntry Dr `from` / Cr `to` for the amount, moving
   * the check's credit out of Unapplied Cash (a reversal's: back into it), so QBO nets the ledger's entry.
   * Its marker is the entry's with `part=unapplied-cash` after it, and it is numbered with the tag of the key
   * and that part (transferTag), so neither it nor an earlier release's whole journal is taken for the other.
   */
  async unappliedCashTransfer(
    doc: TargetDocument,
    from: AccountRole,
    to: AccountRole,
    cents: number,
    note: string,
  ): Promise<Plan> {
    const common = this.common(doc, false);
    const [mark, ...rest] = String(common.PrivateNote).split('\n');
    const line = async (role: AccountRole, posting: 'Debit' | 'Credit') => ({
      Amount: centsToAmount(cents),
      Description: doc.description,
      DetailType: 'JournalEntryLineDetail',
      JournalEntryLineDetail: { PostingType: posting, AccountRef: await this.accounts.ref(role) },
    });
    return {
      entity: 'JournalEntry',
      body: {
        ...common,
        DocNumber: transferTag(doc.key),
        PrivateNote: [`${mark} ${TRANSFER_PART}`, ...rest, note].join('\n'),
        Line: [await line(from, 'Debit'), await line(to, 'Credit')],
      },
    };
  }

  /** The entry's own lines; A/R lines name the customer and A/P lines the vendor. */
  async journal(doc: TargetDocument, note?: string): Promise<Plan> {
    const lines = [];
    for (const line of doc.lines.filter((l) => l.amountCents !== 0)) {
      let entity: Record<string, unknown> | undefined;
      if (line.role === 'AccountsReceivable') {
        entity = {
          Type: 'Customer',
          EntityRef: await this.parties.ref('Customer', doc.customer ?? unnamedCustomer),
        };
      } else if (line.role === 'AccountsPayable') {
        entity = { Type: 'Vendor', EntityRef: await this.parties.ref('Vendor', doc.vendor ?? unnamedVendor) };
      }
      lines.push({
        Amount: centsToAmount(Math.abs(line.amountCents)),
        Description: doc.description,
        DetailType: 'JournalEntryLineDetail',
        JournalEntryLineDetail: {
          PostingType: line.amountCents > 0 ? 'Debit' : 'Credit',
          AccountRef: await this.accounts.ref(line.role),
          ...(entity ? { Entity: entity } : {}),
        },
      });
    }
    const common = this.common(doc);
    if (note) common.PrivateNote = `${common.PrivateNote}\n${note}`;
    // Its A/R (A/P) lines are in QBO's aging on their own: the link (bill) is noted, so they are attributed.
    const touches = (role: AccountRole) => doc.lines.some((l) => l.role === role && l.amountCents !== 0);
    if (doc.invoice && touches('AccountsReceivable'))
      common.PrivateNote = `${common.PrivateNote}\n${ownerNote(doc.invoice)}`;
    if (doc.bill && touches('AccountsPayable'))
      common.PrivateNote = `${common.PrivateNote}\n${ownerNote(doc.bill)}`;
    return { entity: 'JournalEntry', body: { ...common, Line: lines } };
  }
}
