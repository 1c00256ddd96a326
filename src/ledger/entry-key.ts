// Deterministic entry keys derived from service ids, so repeating a write is a no-op (design overview,
// "events are triggers, state is fetched").
//
// Versioned keys: a key that was booked and later reversed can be desired again (an ACH refund credit
// returned, then the same refund... or a voided record reinstated by reconciliation). The reversed entry
// stays as history, and the entry is booked again under `{key}#2`, then `#3`, ... The base key (version 1)
// carries no suffix. `reversal:{key}` is reserved for the ledger's own reversing entries.

export const entryKeys = {
  invoice: (paymentLinkId: string) => `invoice:${paymentLinkId}`,
  invoiceAdjustment: (paymentLinkId: string, sequence: number) =>
    `invoice-adjustment:${paymentLinkId}:${sequence}`,
  bill: (billId: string) => `bill:${billId}`,
  payment: (paymentId: string) => `payment:${paymentId}`,
  /** A payment that settles no invoice (a reusable link, no link): a sale of its own. */
  sale: (paymentId: string) => `sale:${paymentId}`,
  paymentFee: (paymentId: string) => `payment-fee:${paymentId}`,
  /** The part of the card fee the payer paid on top of the invoice (chargedAmountInCents - amountInCents). */
  paymentSurcharge: (paymentId: string) => `payment-surcharge:${paymentId}`,
  /** The card fee's part the payer paid, as the processor keeps it from the gross (with paymentSurcharge). */
  surchargeFee: (paymentId: string) => `surcharge-fee:${paymentId}`,
  /** A fee of the payment's fees[] of another type than the card fee, by its type (a key-safe form). */
  paymentOtherFee: (paymentId: string, feeType: string) => `payment-other-fee:${paymentId}:${feeType}`,
  refund: (refundId: string) => `refund:${refundId}`,
  refundReopen: (refundId: string) => `refund-reopen:${refundId}`,
  externalPayment: (externalPaymentId: string) => `external-payment:${externalPaymentId}`,
  /** Money received outside the service on a reusable link: a sale of its own, not a payment of an invoice. */
  externalSale: (externalPaymentId: string) => `external-sale:${externalPaymentId}`,
  /** A deposited check's whole amount, booked to Unapplied Cash until applied (mapping/check-deposit.ts). */
  checkDeposited: (checkDepositId: string) => `check-deposited:${checkDepositId}`,
  /** The part of a deposit an earlier release's application held, back in Unapplied Cash after its void. */
  checkDepositedBack: (checkDepositId: string, externalPaymentId: string) =>
    `check-deposited:${checkDepositId}:${externalPaymentId}`,
  checkApplication: (externalPaymentId: string) => `check-application:${externalPaymentId}`,
  checkCleared: (checkDepositId: string) => `check-cleared:${checkDepositId}`,
  /** What an earlier release's cleared entry (the applied total then) left out of the deposit. */
  checkClearedRest: (checkDepositId: string) => `check-cleared:${checkDepositId}:rest`,
  debitMemo: (debitMemoId: string) => `debit-memo:${debitMemoId}`,
  disbursementPending: (disbursementId: string) => `disbursement-pending:${disbursementId}`,
  disbursementPaid: (disbursementId: string) => `disbursement-paid:${disbursementId}`,
  billPaymentSent: (billPaymentId: string) => `bill-payment-sent:${billPaymentId}`,
  billPaymentPaid: (billPaymentId: string) => `bill-payment-paid:${billPaymentId}`,
} as const;

export type EntryKind = keyof typeof entryKeys;

const REVERSAL_PREFIX = 'reversal:';

/** `kind:id` or `kind:id#n` (n >= 2); ids may contain ':' but no whitespace, ',', ';' or '#'. */
const keyPattern = /^[a-z][a-z0-9-]*:[^\s,;#]+(?:#(?:[2-9]|[1-9][0-9]+))?$/;
const MAX_KEY_LENGTH = 300;

export function isValidKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && keyPattern.test(key);
}

export function isReversalKey(key: string): boolean {
  return key.startsWith(REVERSAL_PREFIX);
}

export function reversalKey(key: string): string {
  return REVERSAL_PREFIX + key;
}

/** The key without its `#n` version suffix. */
export function baseKey(key: string): string {
  const hash = key.lastIndexOf('#');
  return hash === -1 ? key : key.slice(0, hash);
}

/** 1 for a base key, n for `key#n`. */
export function keyVersion(key: string): number {
  const hash = key.lastIndexOf('#');
  return hash === -1 ? 1 : Number(key.slice(hash + 1));
}

export function versionedKey(base: string, version: number): string {
  if (!Number.isSafeInteger(version) || version < 1) throw new RangeError(`bad key version ${version}`);
  return version === 1 ? base : `${base}#${version}`;
}

/** The part before the first ':' (`payment`, `refund`, `reversal`, ...). */
export function keyPrefix(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}
