import { alreadyPushed } from '../already-pushed.js';
import { TargetRefusedError } from '../errors.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { Ref } from './accounts.js';
import { invoiceNumber, type Plan, pairOf } from './documents.js';
import { withFreshSyncToken } from './helpers.js';
import { docNumberTag, marker, markersIn } from './keys.js';
import { distinctNumber, earlier, findIn, invoiceName } from './look-ups.js';
import { payoutLinks } from './payout-links.js';
import { type QuickBooksSession, remember } from './session.js';

// Which QBO document a ledger entry becomes, with what it needs looked up first: the invoice a payment is
// applied to, its customer, an invoice's free number, the receipts a payout deposits.

export async function planFor(
  s: QuickBooksSession,
  doc: TargetDocument,
  context: PushContext,
): Promise<Plan | { found: PushResult }> {
  const pair = pairOf(doc.lines);
  switch (doc.kind) {
    case 'invoice': {
      // A link booked again after its reversal (`invoice:pl#2`) is a new invoice beside the voided one.
      const numbered = await numberInvoice(s, doc, invoiceName(doc));
      if ('found' in numbered) return numbered;
      return (await s.mapper.invoice(doc, numbered.number)) ?? s.mapper.journal(doc);
    }
    // A charge invoice of its own: the original may be paid already, and only an invoice's Balance says
    // what the customer owes (a journal's A/R line is in the aging, not in any invoice).
    case 'debit-memo':
    case 'refund-reopen':
      return (await s.mapper.invoice(doc, docNumberTag(doc.key))) ?? s.mapper.journal(doc);
    case 'payment':
    case 'external-payment':
    case 'check-application': {
      if (pair?.credit !== 'AccountsReceivable' || !doc.invoice) return s.mapper.journal(doc);
      const invoice = await earlier(s, `invoice:${doc.invoice.paymentLinkId}`, context, doc);
      if (invoice?.entity !== 'Invoice') return s.mapper.journal(doc);
      if (pair.debit === 'UnappliedCash') {
        // A deposited check's credit applied (Dr Unapplied Cash, a liability): a Payment deposits only into
        // an asset account (Finance.xsd, DepositToAccountRef), so the Payment takes the money from Checks To
        // Deposit, where the check is, and applies it to the invoice (its Balance drops, as the service's
        // remainder); applied() then moves the credit out of Unapplied Cash by a journal. An earlier
        // release's whole journal (Dr Unapplied Cash / Cr A/R) is found there, never applied twice.
        const journal = context.mayExist(doc.key) ? await findIn(s, 'JournalEntry', doc.key) : null;
        if (journal) return { found: alreadyPushed(s.name, journal, doc) };
      }
      return s.mapper.payment(
        doc,
        pair.debit === 'UnappliedCash' ? { ...pair, debit: 'ChecksToDeposit' } : pair,
        await applications(s, doc, invoice.id, pair.cents, context),
        await customerOf(s, invoice.id),
      );
    }
    // A raised link: a charge invoice of its own, as a debit memo (the original may be paid already, and only
    // an invoice's Balance says what the customer owes); one an earlier release pushed as a journal entry
    // is found there, never charged twice.
    // A lowered link: a credit memo for the invoice's customer, applied to the invoice once made (applied()).
    // No invoice in QBO to apply it to (booked as a journal entry): the journal entry, as before.
    case 'invoice-adjustment': {
      if (pair?.debit === 'AccountsReceivable' && doc.invoice) {
        const journal = context.mayExist(doc.key) ? await findIn(s, 'JournalEntry', doc.key) : null;
        if (journal) return { found: alreadyPushed(s.name, journal, doc) };
        return (await s.mapper.invoice(doc, docNumberTag(doc.key))) ?? s.mapper.journal(doc);
      }
      if (pair?.credit !== 'AccountsReceivable' || !doc.invoice) return s.mapper.journal(doc);
      const invoice = await earlier(s, `invoice:${doc.invoice.paymentLinkId}`, context, doc);
      if (invoice?.entity !== 'Invoice') return s.mapper.journal(doc);
      // Pushed by an earlier release as a journal entry (an attempt that may have created it): found
      // there, never credited twice.
      const journal = context.mayExist(doc.key) ? await findIn(s, 'JournalEntry', doc.key) : null;
      if (journal) return { found: alreadyPushed(s.name, journal, doc) };
      return s.mapper.creditMemo(doc, pair, await customerOf(s, invoice.id));
    }
    // A sale of its own (no invoice to pay): a sales receipt, for the customer when there is one.
    case 'sale': {
      if (!pair) return s.mapper.journal(doc);
      const customer = doc.customer ? await s.parties.ref('Customer', doc.customer) : null;
      return s.mapper.salesReceipt(doc, pair, customer);
    }
    case 'refund': {
      if (!pair) return s.mapper.journal(doc);
      const invoice = doc.invoice
        ? await earlier(s, `invoice:${doc.invoice.paymentLinkId}`, context, doc)
        : null;
      const customer =
        invoice?.entity === 'Invoice'
          ? await customerOf(s, invoice.id)
          : doc.customer
            ? await s.parties.ref('Customer', doc.customer)
            : null;
      return customer ? s.mapper.refund(doc, pair, customer) : s.mapper.journal(doc);
    }
    case 'disbursement-pending':
      if (pair && doc.payout) {
        const clearing = await s.accounts.ref(pair.credit);
        return s.mapper.payoutDeposit(doc, pair, await payoutLinks(s, doc, context, clearing));
      }
      return pair ? s.mapper.deposit(doc, pair) : s.mapper.journal(doc);
    case 'disbursement-paid':
    case 'check-cleared':
    // The check deposited: a Deposit into Checks To Deposit from Unapplied Cash.
    case 'check-deposited':
      return pair ? s.mapper.deposit(doc, pair) : s.mapper.journal(doc);
    case 'bill': {
      if (pair?.credit !== 'AccountsPayable') return s.mapper.journal(doc);
      if (!doc.vendor) throw new TargetRefusedError(s.name, `bill ${doc.key} has no vendor`);
      return s.mapper.bill(doc, pair, doc.vendor);
    }
    case 'bill-payment-sent': {
      if (pair?.debit !== 'AccountsPayable' || !doc.bill) return s.mapper.journal(doc);
      const bill = await earlier(s, `bill:${doc.bill.billId}`, context, doc);
      if (bill?.entity !== 'Bill') return s.mapper.journal(doc);
      const read = await s.client.read('Bill', bill.id);
      return s.mapper.billPayment(doc, pair, bill.id, read.VendorRef as Ref);
    }
    default:
      return s.mapper.journal(doc);
  }
}

/** The invoice's own customer, so a payment is never applied under a customer guessed again. */
export async function customerOf(s: QuickBooksSession, invoiceId: string): Promise<Ref> {
  const known = s.invoiceCustomers.get(invoiceId);
  if (known) return known;
  const invoice = await s.client.read('Invoice', invoiceId);
  remember(s, 'Invoice', invoice);
  return invoice.CustomerRef as Ref;
}

/**
 * The invoice's number in QBO. Free: the link's name. Taken by an invoice booksync made for another link (a
 * name used again, e.g. each demo day's INV-1001): the name with a digest of this key, so both stay
 * findable and neither is guessed. Taken by an invoice keyed in QBO: adopted under 'match-existing' (the
 * marker added by a sparse update), refused under 'create'.
 */
export async function numberInvoice(
  s: QuickBooksSession,
  doc: TargetDocument,
  name: string,
): Promise<{ number: string } | { found: PushResult }> {
  const holding = async (docNumber: string) =>
    s.numbers?.get(docNumber) ?? (await s.client.select('Invoice', { DocNumber: docNumber }));
  const number = invoiceNumber(name);
  const [existing] = await holding(number);
  if (!existing) return { number };
  if (markersIn(existing.PrivateNote).length > 0) {
    const distinct = distinctNumber(doc, name);
    const [taken] = await holding(distinct);
    if (!taken) return { number: distinct };
    throw new TargetRefusedError(
      s.name,
      `invoice numbers ${number} and ${distinct} are both taken in QuickBooks (Ids ${existing.Id}, ${taken.Id})`,
    );
  }
  if (s.options.matching !== 'match-existing') {
    throw new TargetRefusedError(
      s.name,
      `invoice number ${number} already exists in QuickBooks (Id ${existing.Id}); matching policy 'create' does not adopt it`,
    );
  }
  const mark = marker(doc.key, doc.contentHash);
  const updated = await withFreshSyncToken(
    s,
    'Invoice',
    existing.Id,
    (current) => ({
      sparse: true,
      PrivateNote:
        typeof current.PrivateNote === 'string' && current.PrivateNote
          ? `${mark}\n${current.PrivateNote}`
          : mark,
    }),
    { operation: 'update' },
    doc.key,
  );
  return {
    found: {
      key: doc.key,
      remoteIds: [`Invoice:${updated.Id}`],
      contentHash: doc.contentHash,
      created: false,
    },
  };
}

/**
 * The invoices money received on a link is applied to, as the document's split says (the link's invoice,
 * then its memos' and reopened amounts' charge invoices, oldest first; applications.ts): each one QuickBooks
 * holds as an Invoice gets its part, the rest stays unapplied (the customer's credit). With no split, the
 * whole on the link's invoice.
 */
export async function applications(
  s: QuickBooksSession,
  doc: TargetDocument,
  invoiceId: string,
  cents: number,
  context: PushContext,
): Promise<{ invoiceId: string; cents: number }[]> {
  if (!doc.settles) return [{ invoiceId, cents }];
  const applied: { invoiceId: string; cents: number }[] = [];
  for (const part of doc.settles.applied) {
    const record =
      part.key === `invoice:${doc.invoice?.paymentLinkId}`
        ? { entity: 'Invoice', id: invoiceId }
        : await earlier(s, part.key, context);
    if (record?.entity === 'Invoice') applied.push({ invoiceId: record.id, cents: part.amountCents });
  }
  return applied;
}
