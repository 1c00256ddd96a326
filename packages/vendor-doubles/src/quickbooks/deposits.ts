// What a QBO Deposit links and what is left to deposit, as Intuit's Deposit reference describes it
// (https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/deposit, Line): "Specify a
// Line.LinkedTxn element ... if this line is to record a deposit for an existing transaction. Select
// UndepositedFunds account on the existing transaction to make it available for the Deposit. Possible types
// of transactions that can be linked to a Deposit include: Transfer, Payment (for Cash, CreditCard, and Check
// payment method types), SalesReceipt, RefundReceipt, JournalEntry." QuickBooks' "funds to deposit" list (the
// bank deposit screen's "Select the payments included in this deposit") is what these transactions put in
// Undeposited Funds that no deposit links yet (README.md, the `deposit-*` rules).

type Entity = Record<string, unknown>;

/** Where the double's entities are read: an entity by type and Id, and all of a type. */
export interface Entities {
  get(entity: string, id: string): Entity | undefined;
  all(entity: string): Iterable<Entity>;
  voided(entity: string, id: string): boolean;
}

/** The LinkedTxn TxnType values Intuit lists for a Deposit line. */
export const depositableTypes = ['Transfer', 'Payment', 'SalesReceipt', 'RefundReceipt', 'JournalEntry'];

/** A deposit line's link: the transaction (a journal's line by TxnLineId) and the line's amount in cents. */
export interface DepositLink {
  type: string;
  id: string;
  lineId: string;
  cents: number;
}

/** Money a transaction (or a journal's line) put in an account: positive in, negative out. */
export interface Funds {
  key: string;
  type: string;
  id: string;
  lineId: string;
  account: string;
  cents: number;
}

const cents = (amount: unknown) => Math.round(Number(amount ?? 0) * 100);
const refValue = (ref: unknown) => String((ref as { value?: unknown } | undefined)?.value ?? '');

/** `Payment:12`, `JournalEntry:7:1`: what a deposit takes, once (a journal's by its line). */
export function fundsKey(type: string, id: string, lineId: string): string {
  return type === 'JournalEntry' ? `${type}:${id}:${lineId}` : `${type}:${id}`;
}

/** The linked lines of a deposit body. */
export function depositLinks(deposit: Entity): DepositLink[] {
  return ((deposit.Line as Entity[] | undefined) ?? []).flatMap((l) =>
    ((l.LinkedTxn as { TxnId: string; TxnType: string; TxnLineId?: string }[] | undefined) ?? []).map(
      (t) => ({ type: t.TxnType, id: t.TxnId, lineId: String(t.TxnLineId ?? '0'), cents: cents(l.Amount) }),
    ),
  );
}

/**
 * What a transaction put where it deposits: a Payment's and a SalesReceipt's TotalAmt into its
 * DepositToAccountRef (Undeposited Funds when none), a RefundReceipt's TotalAmt out of its
 * DepositToAccountRef, a journal line's amount into (Debit) or out of (Credit) its account, a Transfer's
 * Amount into its ToAccountRef. A journal's every line (with its Id); nothing for a voided transaction.
 */
export function fundsOf(db: Entities, type: string, id: string, undeposited: string): Funds[] {
  const t = db.get(type, id);
  if (!t || db.voided(type, id)) return [];
  const whole = (account: string, amount: number): Funds[] => [
    { key: fundsKey(type, id, '0'), type, id, lineId: '0', account, cents: amount },
  ];
  switch (type) {
    case 'Payment':
    case 'SalesReceipt':
      return whole(t.DepositToAccountRef ? refValue(t.DepositToAccountRef) : undeposited, cents(t.TotalAmt));
    case 'RefundReceipt':
      return whole(refValue(t.DepositToAccountRef), -cents(t.TotalAmt));
    case 'Transfer':
      return whole(refValue(t.ToAccountRef), cents(t.Amount));
    case 'JournalEntry':
      return ((t.Line as Entity[] | undefined) ?? []).map((l) => {
        const detail = l.JournalEntryLineDetail as Entity | undefined;
        const lineId = String(l.Id ?? '');
        return {
          key: fundsKey(type, id, lineId),
          type,
          id,
          lineId,
          account: refValue(detail?.AccountRef),
          cents: (detail?.PostingType === 'Debit' ? 1 : -1) * cents(l.Amount),
        };
      });
    default:
      return [];
  }
}

/** The one amount a link takes: the linked transaction's (a journal's: its line TxnLineId names). */
export function linkedFunds(db: Entities, link: DepositLink, undeposited: string): Funds | undefined {
  const key = fundsKey(link.type, link.id, link.lineId);
  return fundsOf(db, link.type, link.id, undeposited).find((f) => f.key === key);
}

/**
 * The keys every live deposit has taken; but the deposit `except` (its Id), when an update of it is checked:
 * its lines as sent are what it takes then (Intuit's Deposit reference, "Full update a deposit": the update
 * replaces the deposit's lines, so what it linked before and keeps is not linked twice).
 */
export function depositedKeys(db: Entities, except?: string): Set<string> {
  const taken = new Set<string>();
  for (const d of db.all('Deposit'))
    if (!db.voided('Deposit', String(d.Id)) && String(d.Id) !== except)
      for (const l of depositLinks(d)) taken.add(fundsKey(l.type, l.id, l.lineId));
  return taken;
}

/**
 * QuickBooks' list of funds to deposit: what the depositable transactions put in (or took out of) Undeposited
 * Funds, not zero, that no deposit links yet.
 */
export function fundsToDeposit(db: Entities, undeposited: string): Funds[] {
  const taken = depositedKeys(db);
  return depositableTypes.flatMap((type) =>
    [...db.all(type)].flatMap((t) =>
      fundsOf(db, type, String(t.Id), undeposited).filter(
        (f) => f.account === undeposited && f.cents !== 0 && !taken.has(f.key),
      ),
    ),
  );
}
