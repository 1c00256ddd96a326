import type { PayoutReceipt, TargetDocument } from '../target-port.js';

// Which payments a payout carries, in Xero. A payout is a BankTransfer out of the Processor
// Clearing bank account; the payments it carries were received into that account one by one, each on its own
// day (Payments against invoices, RECEIVE bank transactions for sales). Xero has no field that links a
// transfer to payments, and its batch deposit (BatchPayments) makes new payments of invoices on one date
// rather than grouping existing ones (see README, "Payouts"). So the transfer carries the list as notes in its
// History & Notes (PUT BankTransfers/{id}/History; https://developer.xero.com/documentation/api/history-and-notes:
// "Details: The note to be recorded against a single document. Max Length 250 characters"), where a Xero
// user opening the transfer reads them, and any reader of the API finds them again: each receipt by its ledger
// key, the key every Payment and bank transaction carries in its Reference (`booksync key=<key> ...`).
// A receipt reversed after the payout carried it (an ACH return, a failed card payment, a payment cancelled)
// gets a note of its own when its reversal is pushed, since a note is never edited: `booksync payout:
// payment:pay_1 50.00 2026-01-05 reversed since by reversal:payment:pay_1 on 2026-01-20: ...`, so the notes
// say at every step which of the payments carried still stand.

/** Xero's longest note (history-and-notes: "Max Length 250 characters"). */
export const NOTE_LIMIT = 250;

const PREFIX = 'booksync payout';

function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** One receipt as a note lists it: `payment:pay_1 50.00 2026-01-05`. */
function item(receipt: PayoutReceipt): string {
  return `${receipt.key} ${money(receipt.amountCents)} ${receipt.date}`;
}

/**
 * The notes listing a payout's receipts, each within Xero's 250 characters: `booksync payout (1/2) carries:
 * payment:pay_1 50.00 2026-01-05; sale:pay_3 25.00 2026-01-06`. Numbered, so a reader knows it has them all
 * and a push again adds exactly the ones missing. None for a payout that carries no receipt the books hold.
 */
export function payoutNotes(receipts: readonly PayoutReceipt[]): string[] {
  // The header's length with the widest numbering a payout of this many receipts can need.
  const width = String(receipts.length).length;
  const room = NOTE_LIMIT - `${PREFIX} (${'9'.repeat(width)}/${'9'.repeat(width)}) carries: `.length;
  const groups: string[][] = [];
  for (const receipt of receipts) {
    const text = item(receipt);
    if (text.length > room) throw new Error(`payout receipt ${receipt.key} is too long for a Xero note`);
    const group = groups.at(-1);
    if (group && [...group, text].join('; ').length <= room) group.push(text);
    else groups.push([text]);
  }
  return groups.map((g, i) => `${PREFIX} (${i + 1}/${groups.length}) carries: ${g.join('; ')}`);
}

/** The receipts the notes list (the inverse of payoutNotes), in order; other notes are ignored. */
export function receiptsInNotes(notes: readonly string[]): PayoutReceipt[] {
  const pattern = new RegExp(`^${PREFIX} \\((\\d+)/(\\d+)\\) carries: (.*)$`);
  const parts = notes
    .map((n) => pattern.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  return parts.flatMap((m) =>
    (m[3] ?? '').split('; ').map((text) => {
      const [key = '', amount = '0', date = ''] = text.split(' ');
      const [whole = '0', fraction = '0'] = amount.replace('-', '').split('.');
      const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
      return { key, amountCents: amount.startsWith('-') ? -cents : cents, date };
    }),
  );
}

const REVERSED = `${PREFIX}: `;
const reversedPattern = new RegExp(
  `^${REVERSED}(\\S+) (\\S+) (\\S+) reversed since by (\\S+) on (\\S+)(?:: (.*))?$`,
);

/** A carried receipt reversed since, as its note says: by which reversal (its ledger key), when and why. */
export interface ReceiptReversed {
  key: string;
  by: string;
  date: string;
  reason: string;
}

/**
 * The note saying that `receipt`, which the payout's notes list, was reversed since by `reversal` (its ledger
 * key, date and reason, the ledger's "Reversal of <key>: " left out): within Xero's 250 characters, the
 * reason cut to fit.
 */
export function reversalNote(receipt: PayoutReceipt, reversal: TargetDocument): string {
  const head = `${REVERSED}${item(receipt)} reversed since by ${reversal.key} on ${reversal.date}`;
  if (head.length > NOTE_LIMIT) throw new Error(`reversal ${reversal.key} is too long for a Xero note`);
  const reason = (reversal.reason ?? '')
    .replace(/^Reversal of \S+: /, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (reason === '') return head;
  const room = NOTE_LIMIT - head.length - 2;
  if (room <= 1) return head;
  return `${head}: ${reason.length > room ? `${reason.slice(0, room - 1)}…` : reason}`;
}

/** The reversals the notes record (reversalNote's inverse), oldest first; other notes are ignored. */
export function reversalsInNotes(notes: readonly string[]): ReceiptReversed[] {
  return notes
    .map((n) => reversedPattern.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ key: m[1] ?? '', by: m[4] ?? '', date: m[5] ?? '', reason: m[6] ?? '' }));
}
