import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BooksSnapshot } from '../support/books-snapshot.js';

// The books a scenario should produce, written down from the design's mapping table and decision “Fees” by hand, not by
// calling the mapping functions: a second, independent computation to compare the ledger with.

/** Decision “Fees”: F = round(amount * 2.9%) + 30; the payer pays P = round(F * p / 100); the business absorbs F - P. */
export function cardFee(amountCents: number, passthroughPercent: number) {
  const fee = Math.round(amountCents * 0.029) + 30;
  const passedThrough = Math.round((fee * passthroughPercent) / 100);
  return { fee, passedThrough, platformFee: fee - passedThrough };
}

type Lines = Partial<Record<AccountName, number>>;

export class ExpectedBooks {
  /** Every entry, reversed ones and reversals included: key → net amount per account. */
  readonly entries = new Map<string, Lines>();
  readonly reversed = new Set<string>();

  private add(key: string, lines: Lines): void {
    if (this.entries.has(key)) throw new Error(`expected twice: ${key}`);
    this.entries.set(key, lines);
  }

  /**
   * payment received: Dr Processor Clearing (gross) / Cr Accounts Receivable; the absorbed card fee; the part
   * of the fee passed to the payer, received as Surcharge Income and kept by the processor as a fee.
   */
  payment(paymentId: string, amountCents: number, platformFeeCents = 0, passedThroughCents = 0): void {
    this.add(`payment:${paymentId}`, {
      [Accounts.ProcessorClearing]: amountCents,
      [Accounts.AccountsReceivable]: -amountCents,
    });
    if (platformFeeCents > 0) {
      this.add(`payment-fee:${paymentId}`, {
        [Accounts.ProcessingFees]: platformFeeCents,
        [Accounts.ProcessorClearing]: -platformFeeCents,
      });
    }
    if (passedThroughCents > 0) {
      this.add(`payment-surcharge:${paymentId}`, {
        [Accounts.ProcessorClearing]: passedThroughCents,
        [Accounts.SurchargeIncome]: -passedThroughCents,
      });
      this.add(`surcharge-fee:${paymentId}`, {
        [Accounts.ProcessingFees]: passedThroughCents,
        [Accounts.ProcessorClearing]: -passedThroughCents,
      });
    }
  }

  /** invoice: Dr Accounts Receivable / Cr Revenue for the link's own amount, when booksync learns of it. */
  invoice(paymentLinkId: string, amountCents: number): void {
    this.add(`invoice:${paymentLinkId}`, {
      [Accounts.AccountsReceivable]: amountCents,
      [Accounts.Revenue]: -amountCents,
    });
  }

  /**
   * refund: Dr Refunds / Cr Processor Clearing; on a payment of a link, the service reopens the invoice by
   * the amount (decision “completedAmountCents”), booked Dr Accounts Receivable / Cr Refunds.
   */
  refund(refundId: string, amountCents: number, reopensInvoice = true): void {
    this.add(`refund:${refundId}`, {
      [Accounts.Refunds]: amountCents,
      [Accounts.ProcessorClearing]: -amountCents,
    });
    if (reopensInvoice) this.refundReopen(refundId, amountCents);
  }

  /** refund-reopen: the refunded amount owed again on the link's invoice, Dr Accounts Receivable / Cr Refunds. */
  refundReopen(refundId: string, amountCents: number): void {
    this.add(`refund-reopen:${refundId}`, {
      [Accounts.AccountsReceivable]: amountCents,
      [Accounts.Refunds]: -amountCents,
    });
  }

  /** bill: the bill behind a bill payment, Dr Bill Expenses / Cr Accounts Payable for its amount. */
  bill(billId: string, amountCents: number): void {
    this.add(`bill:${billId}`, {
      [Accounts.BillExpenses]: amountCents,
      [Accounts.AccountsPayable]: -amountCents,
    });
  }

  /** void, ACH return, returned refund credit: a reversing entry, lines negated. */
  reverse(key: string): void {
    const lines = this.entries.get(key);
    if (!lines) throw new Error(`nothing expected under ${key} to reverse`);
    this.reversed.add(key);
    this.add(
      `reversal:${key}`,
      Object.fromEntries(Object.entries(lines).map(([account, cents]) => [account, -(cents ?? 0)])),
    );
  }

  /** disbursement pending: Dr Payouts In Transit / Cr Processor Clearing; succeeded: Dr Bank / Cr In Transit. */
  disbursement(disbursementId: string, amountCents: number, succeeded: boolean): void {
    this.add(`disbursement-pending:${disbursementId}`, {
      [Accounts.PayoutsInTransit]: amountCents,
      [Accounts.ProcessorClearing]: -amountCents,
    });
    if (succeeded) {
      this.add(`disbursement-paid:${disbursementId}`, {
        [Accounts.OperatingBank]: amountCents,
        [Accounts.PayoutsInTransit]: -amountCents,
      });
    }
  }

  /** Every account of the chart with its expected balance (0 for the untouched ones). */
  balances(): Record<AccountName, number> {
    const out = Object.fromEntries(Object.values(Accounts).map((a) => [a, 0])) as Record<AccountName, number>;
    for (const lines of this.entries.values()) {
      for (const [account, cents] of Object.entries(lines)) out[account as AccountName] += cents ?? 0;
    }
    return out;
  }

  /** The entries still standing: neither reversed nor a reversal. */
  liveKeys(): string[] {
    return [...this.entries.keys()].filter((k) => !this.reversed.has(k) && !k.startsWith('reversal:')).sort();
  }
}

/** An entry's lines as net cents per account, for comparison with ExpectedBooks. */
export function netLines(lines: readonly { account: string; amountCents: number }[]): Lines {
  const out: Record<string, number> = {};
  for (const line of lines) out[line.account] = (out[line.account] ?? 0) + line.amountCents;
  return out as Lines;
}

/** The ledger's entries as key → net lines, for toEqual against ExpectedBooks.entries. */
export function actualEntries(books: BooksSnapshot): Map<string, Lines> {
  return new Map(Object.entries(books.entries).map(([key, entry]) => [key, netLines(entry.lines)]));
}

/** Only the entries neither reversed nor reversing (what a replay from the final state books). */
export function liveEntries(books: BooksSnapshot): BooksSnapshot['entries'] {
  return Object.fromEntries(
    Object.entries(books.entries).filter(
      ([key, entry]) => entry.reversedBy === null && entry.reverses === null && !key.startsWith('reversal:'),
    ),
  );
}

/**
 * What a replay from the final states books: every entry of a run followed step by step, reversals and all,
 * except what the final records no longer carry: a refund whose ACH credit came back (payment.failed after
 * payment.refunded; the payment's record no longer lists it, spec 3) and the card fee of a charge voided
 * before settlement (the record then shows no fee: "no fee applies", spec 6.5).
 */
export function finalStateEntries(books: BooksSnapshot): BooksSnapshot['entries'] {
  const refundGone = (key: string) => {
    const original = key.startsWith('reversal:') ? key.slice('reversal:'.length) : key;
    return (
      /^(refund|refund-reopen|payment-fee):/.test(original) && books.entries[original]?.reversedBy != null
    );
  };
  return Object.fromEntries(Object.entries(books.entries).filter(([key]) => !refundGone(key)));
}

/** A deterministic shuffle (mulberry32), so a failing order can be reproduced from the seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
