import type { Disbursement, Payment } from '@booksync/service-contract/schemas/index';
import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry } from '../ledger/entry.js';
import { baseKey, keyPrefix } from '../ledger/entry-key.js';
import { businessDay } from '../ledger/mapping/dates.js';
import { payoutBankOf } from '../ledger/mapping/disbursement.js';
import { dayBefore } from '../ledger/opening-balances.js';
import { economicDay, reversalDays } from './balances-as-of.js';
import type { CloseInput } from './close-input.js';
import { billPaymentReversals } from './documents-as-of.js';
import { paymentStanding } from './payment-standing.js';

// The period's movements the service's records can vouch for, against the books' accounts: the Operating
// Bank's payouts received and bill payments paid, the Payout Bank's payouts received (the payouts to the
// accounts PAYOUT_BANK_ACCOUNTS names), revenue, and processing fees. Pure.
//
// Each figure of the period is the figure at the end of its last day less the figure at the end of the day
// before its first: what stood then and stands now, so a payment created in an earlier month and returned or
// cancelled in this one counts against this one, as the books' reversal does. The service's side comes from
// its records' own fields and dates (named in each basis); the books' side from the account's lines of the
// entries whose economic date (else date) is in the period.

export interface PeriodFigure {
  check: 'OperatingBank' | 'PayoutBank' | 'Revenue' | 'Fees';
  title: string;
  from: string;
  to: string;
  booksCents: number;
  serviceCents: number;
  /**
   * The part of booksCents - serviceCents the service has no record of, named by the books (Revenue: the
   * changes of a link's amount, which the service keeps no history of); 0 for the others.
   */
  explainedCents: number;
  /** booksCents - serviceCents - explainedCents: a difference no record explains. */
  differenceCents: number;
  ok: boolean;
  /** Where each side's figure comes from. */
  basis: string;
  /**
   * Shown beside the figure, not compared (Operating Bank: its movements of no payout or bill payment; Payout
   * Bank: of no payout).
   */
  otherBooksCents?: number;
}

/** The books' movement of `accounts` in the period (economic dates), of the entries `pick` keeps. */
function booksMovement(
  entries: readonly BookedEntry[],
  from: string,
  to: string,
  accounts: readonly string[],
  pick: (e: BookedEntry) => boolean = () => true,
): number {
  let cents = 0;
  for (const entry of entries) {
    const day = economicDay(entry);
    if (day < from || day > to || !pick(entry)) continue;
    for (const line of entry.lines) if (accounts.includes(line.account)) cents += line.amountCents;
  }
  return cents;
}

const kindOf = (e: BookedEntry) => keyPrefix(baseKey(e.reverses ?? e.key));

function figure(
  base: Omit<PeriodFigure, 'differenceCents' | 'ok' | 'explainedCents'>,
  explainedCents = 0,
): PeriodFigure {
  const differenceCents = base.booksCents - base.serviceCents - explainedCents;
  return { ...base, explainedCents, differenceCents, ok: differenceCents === 0 };
}

/** A disbursement SUCCEEDED with paidAt (else createdAt) in the period. */
function paidIn(d: Disbursement, from: string, to: string): boolean {
  const paid = d.paidAt ?? d.createdAt;
  return d.status === 'SUCCEEDED' && paid !== null && paid >= from && paid <= to;
}

/** The bank account the books receive a disbursement in, by PAYOUT_BANK_ACCOUNTS (as the mapping does). */
const bankOf = (input: CloseInput, d: Disbursement) =>
  payoutBankOf(d, { payoutBankAccounts: input.payoutBankAccounts ?? [] });

/** Operating Bank: payouts received (+) and bill payments debited (-) in the period. */
function operatingBank(input: CloseInput, from: string, to: string): PeriodFigure {
  const { timeZone } = input;
  const inPeriod = (day: string) => day >= from && day <= to;
  let service = 0;
  for (const d of input.disbursements) {
    if (paidIn(d, from, to) && bankOf(input, d) === Accounts.OperatingBank) service += d.amountInCents;
  }
  const billPaymentUndone = billPaymentReversals(input.entries);
  for (const bp of input.billPayments) {
    // ACH and wire: the business's account is debited at the send (spec 6.5); a check: when it is cashed.
    const check = bp.deliveryMethodType === 'CHECK';
    const debitedAt = check ? (bp.status === 'SUCCEEDED' ? bp.completedAt : null) : bp.sentAt;
    if (!debitedAt) continue;
    // A FAILED ACH or wire payment was debited at the send and its debit returned (spec 6.5), at no time the
    // spec gives: the day the books reversed it; never booked and reversed, nothing moved in the books.
    const returnedOn = bp.status === 'FAILED' ? billPaymentUndone.get(bp.id) : undefined;
    if (bp.status === 'FAILED' && (check || returnedOn === undefined)) continue;
    if (inPeriod(businessDay(debitedAt, timeZone, `bill payment ${bp.id} date`))) service -= bp.amountCents;
    if (returnedOn !== undefined && inPeriod(returnedOn)) service += bp.amountCents;
  }
  const ofPayoutsAndBills = (e: BookedEntry) => Boolean(e.links.disbursementId || e.links.billPaymentId);
  const bank = [Accounts.OperatingBank];
  const books = booksMovement(input.entries, from, to, bank, ofPayoutsAndBills);
  return figure({
    check: 'OperatingBank',
    title: 'Operating Bank (payouts and bill payments)',
    from,
    to,
    booksCents: books,
    serviceCents: service,
    otherBooksCents: booksMovement(input.entries, from, to, bank, (e) => !ofPayoutsAndBills(e)),
    basis: `service: disbursements SUCCEEDED with paidAt (else createdAt) from ${from} to ${to}${input.payoutBankAccounts?.length ? ' to an account PAYOUT_BANK_ACCOUNTS does not name' : ''}, less bill payments debited then (ACH and wire at sentAt, a check at completedAt when SUCCEEDED), a FAILED ACH or wire one's debit back on the day the books reversed it (the spec gives a failure no time); books: the Operating Bank lines of the entries of a disbursement or bill payment dated (economic date) in the period. Its other movements (deposit slips, cleared check deposits, payments recorded straight to the bank) are shown, not compared: the service holds no record of them.`,
  });
}

/**
 * Payout Bank: payouts received in the period, those to the accounts PAYOUT_BANK_ACCOUNTS names. Null when
 * none is named and the books receive nothing in Payout Bank (every payout is the Operating Bank's figure).
 */
function payoutBank(input: CloseInput, from: string, to: string): PeriodFigure | null {
  const accounts = [Accounts.PayoutBank];
  const named = input.payoutBankAccounts ?? [];
  const booked = input.entries.some((e) => e.lines.some((l) => l.account === Accounts.PayoutBank));
  if (named.length === 0 && !booked) return null;
  let service = 0;
  for (const d of input.disbursements) {
    if (paidIn(d, from, to) && bankOf(input, d) === Accounts.PayoutBank) service += d.amountInCents;
  }
  const ofPayouts = (e: BookedEntry) => Boolean(e.links.disbursementId);
  return figure({
    check: 'PayoutBank',
    title: 'Payout Bank (payouts)',
    from,
    to,
    booksCents: booksMovement(input.entries, from, to, accounts, ofPayouts),
    serviceCents: service,
    otherBooksCents: booksMovement(input.entries, from, to, accounts, (e) => !ofPayouts(e)),
    basis: `service: disbursements SUCCEEDED with paidAt (else createdAt) from ${from} to ${to} to an account whose last four digits PAYOUT_BANK_ACCOUNTS names (${named.length > 0 ? named.join(', ') : 'none'}); books: the Payout Bank lines of the entries of a disbursement dated (economic date) in the period. Its other movements are shown, not compared.`,
  });
}

/** Every payment the service lists (top-level and on links), each once. */
const allPayments = (input: CloseInput): Payment[] => [
  ...new Map([...input.payments, ...input.links.flatMap((l) => l.payments)].map((p) => [p.id, p])).values(),
];

/** The processor's fees of a payment: its fees[] as the service gives them, else its card fee fields. */
const feesOf = (p: Payment) =>
  (p.fees ?? []).length > 0
    ? p.fees.reduce((sum, f) => sum + f.amountInCents, 0)
    : p.platformFeeInCents + Math.max(0, (p.chargedAmountInCents ?? p.amountInCents) - p.amountInCents);

/** Fees: the processor's fees of the payments standing (a chargeback's kept) at the end of a day. */
function feesAsOf(input: CloseInput, day: string): number {
  const failedOn = reversalDays(input.entries).payments;
  let cents = 0;
  for (const p of allPayments(input)) {
    const standing = paymentStanding(p, day, input.timeZone, failedOn.get(p.id));
    const chargeback = standing === 'failed' && p.paymentMethod?.type === 'Card';
    if (standing === 'stands' || chargeback) cents += feesOf(p);
  }
  return cents;
}

function fees(input: CloseInput, from: string, to: string): PeriodFigure {
  const service = from > to ? 0 : feesAsOf(input, to) - feesAsOf(input, dayBefore(from));
  const accounts = [Accounts.ProcessingFees, Accounts.DisputeFees, Accounts.ReturnFees];
  return figure({
    check: 'Fees',
    title: 'Processing fees',
    from,
    to,
    booksCents: booksMovement(input.entries, from, to, accounts),
    serviceCents: service,
    basis: `service: the fees[] of the payments created (createdAt) from ${from} to ${to} (without fees[], platformFeeInCents and chargedAmountInCents less amountInCents), a card chargeback's kept, an ACH return's and a charge cancelled before settlement's gone on the day it happened (the books' reversal day, the spec giving a failure no time); books: Processing, Dispute and Return Fees in the period.`,
  });
}

/** Links the books invoice (an `invoice:` entry crediting Revenue) by the end of a day, with that day. */
function invoicedLinks(entries: readonly BookedEntry[]): Map<string, string> {
  const invoiced = new Map<string, string>();
  for (const e of entries) {
    const id = e.links.paymentLinkId;
    if (!id || e.reverses !== null || kindOf(e) !== 'invoice') continue;
    // An invoice carried in from before the books opened credits Opening Balances: no revenue of theirs.
    if (!e.lines.some((l) => l.account === Accounts.Revenue)) continue;
    const seen = invoiced.get(id);
    if (seen === undefined || economicDay(e) < seen) invoiced.set(id, economicDay(e));
  }
  return invoiced;
}

/** Revenue at the end of a day: invoiced links' own amounts, sales standing, external sales paid. */
function revenueAsOf(input: CloseInput, day: string, invoicedOn: Map<string, string>): number {
  const { timeZone } = input;
  const failedOn = reversalDays(input.entries).payments;
  // A payment on a link settles its invoice unless the link is listed as reusable (expected-objects.ts).
  const reusable = new Set(input.links.filter((l) => l.reusable).map((l) => l.id));
  let cents = 0;
  for (const link of input.links) {
    const on = invoicedOn.get(link.id);
    if (!link.reusable && on !== undefined && on <= day)
      cents += link.requestedAmountCents - (link.debitMemoAmountCents ?? 0);
    if (!link.reusable) continue;
    for (const ep of link.externalPayments)
      if (!ep.voided && businessDay(ep.paidAt, timeZone, `external payment ${ep.id} paidAt`) <= day)
        cents += ep.amountCents;
  }
  for (const p of allPayments(input)) {
    if (p.paymentLinkId && !reusable.has(p.paymentLinkId)) continue;
    if (paymentStanding(p, day, timeZone, failedOn.get(p.id)) === 'stands') cents += p.amountInCents;
  }
  return cents;
}

function revenue(input: CloseInput, from: string, to: string): PeriodFigure {
  const invoicedOn = invoicedLinks(input.entries);
  const service = revenueAsOf(input, to, invoicedOn) - revenueAsOf(input, dayBefore(from), invoicedOn);
  const accounts = [Accounts.Revenue, Accounts.DiscountsAndWriteOffs];
  const books = 0 - booksMovement(input.entries, from, to, accounts);
  // A link's amount changed (invoice-adjustment): the service keeps no history of it, its own amount is the
  // link's now. One booked in the period on a link invoiced before it is in the books' figure and in neither
  // side of the service's; one on a link invoiced in the period is in both, but for what was written off (Bad
  // Debt, an expense: Revenue keeps what was invoiced) which only the service's amount lacks; one booked after
  // the period, on a link invoiced in it, is in the service's amount now and not in the books' period.
  const adjustment = (e: BookedEntry) => kindOf(e) === 'invoice-adjustment';
  const invoicedInPeriod = (e: BookedEntry) => {
    const on = invoicedOn.get(e.links.paymentLinkId ?? '');
    return on !== undefined && on >= from && on <= to;
  };
  const changedIn =
    0 - booksMovement(input.entries, from, to, accounts, (e) => adjustment(e) && !invoicedInPeriod(e));
  const writtenOffIn =
    0 -
    booksMovement(input.entries, from, to, [Accounts.BadDebt], (e) => adjustment(e) && invoicedInPeriod(e));
  const changedAfter =
    0 -
    booksMovement(
      input.entries,
      dayAfter(to),
      '9999-12-31',
      [...accounts, Accounts.BadDebt],
      (e) => adjustment(e) && invoicedInPeriod(e),
    );
  return figure(
    {
      check: 'Revenue',
      title: 'Revenue (net of discounts and write-offs)',
      from,
      to,
      booksCents: books,
      serviceCents: service,
      basis: `service: the own amount (requestedAmountCents less debitMemoAmountCents) of each payment link whose invoice the books date from ${from} to ${to} (the spec gives a link no creation date), the payments settling no invoice created then (createdAt; less those returned or cancelled then), and the external payments on reusable links paid then (paidAt); books: Revenue less Discounts and Write-offs in the period. A change of a link's amount is explained from the books' adjustments (the service keeps no history of it), a receivable written off (Bad Debt, not a lowering of revenue) among them.`,
    },
    changedIn - writtenOffIn - changedAfter,
  );
}

const dayAfter = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The period's Operating Bank, Payout Bank (when used), revenue and fees against the service's records. */
export function periodFigures(input: CloseInput): PeriodFigure[] {
  // From the day the books open when that is later (a backfill): what settled before is in the opening
  // entry, not in the period's movements, as the objects before it are SKIPPED.
  const { opensOn, period } = input;
  const from = opensOn && opensOn > period.from ? opensOn : period.from;
  const payouts = payoutBank(input, from, period.to);
  return [
    operatingBank(input, from, period.to),
    ...(payouts ? [payouts] : []),
    revenue(input, from, period.to),
    fees(input, from, period.to),
  ];
}
