import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { baseKey } from '../../src/ledger/entry-key.js';
import { TRANSFER_PART } from '../../src/targets/quickbooks/documents.js';
import { markersIn } from '../../src/targets/quickbooks/keys.js';
import { BooksyncProcess } from '../support/booksync-start.js';
import { freePort } from '../support/free-port.js';
import {
  type ConsentPage,
  crashThenEverythingTwice,
  freshCompanyToClosedMonth,
  revokeThenReconnect,
  rideOutStormAndOutage,
  type TargetBooksRun,
  type TargetChart,
} from '../support/target-books-scenario.js';

/** Four times the stack's longest wait between push attempts (PUSH_RETRY_MAX_INTERVAL, 5 s in these tests). */
const outageMs = 20_000;

// booksync's demo business day pushed by the real `booksync start` (ACCOUNTING_TARGET=quickbooks) to the
// QuickBooks Online test double, a stateful loopback QBO held to Intuit's XSDs (test/support/quickbooks):
// the company starts as a new QBO company (QBO's chart without account numbers, Undeposited Funds its system
// account, none of booksync's accounts), is connected with `booksync targets connect quickbooks` (the test
// plays the browser) and set up with `booksync targets setup quickbooks --apply`; access tokens die every 20 s
// so refreshes happen mid-run. The double's own account balances must equal the
// ledger through the account mapping, paid invoices show Balance 0, the returned check's invoice is open
// again, and every ledger entry is one QBO document: through a SIGKILL between a create and its index
// write, every event delivered twice more, a 429 storm, an outage of several push attempts, and a revoked connection.

const documentEntities = [
  'Invoice',
  'Payment',
  'Deposit',
  'JournalEntry',
  'RefundReceipt',
  'Bill',
  'BillPayment',
];

const double = new QuickBooksDouble({ accessTokenTtlMs: 20_000, latencyMs: 2 });
const booksync = new BooksyncProcess();
let realmId: string;
/** The newcomer's own booksync and company (the last test). */
const newcomer = new BooksyncProcess();
let newcomerRealmId: string;
const newcomerAdminToken = `admin-${Math.random().toString(36).slice(2)}-qbo-newcomer`;

/**
 * Every booksync marker in the company: one per ledger entry (a void adds its reversal's to the original). A
 * deposited check's credit applied to an invoice is two records by design, the Payment on the invoice and the
 * journal moving the credit out of Unapplied Cash (its marker followed by TRANSFER_PART): the journal's is
 * that entry's second record, not another entry's, so it is left out here and checked on its own
 * (transferJournals: at most one per application entry, and only for those). A returned check's reversal of
 * that application voids the Payment and reverses the journal by one of its own, the reversal entry's second
 * record likewise.
 */
function markers(): string[] {
  return documentEntities.flatMap((entity) =>
    double
      .all(realmId, entity)
      .filter((doc) => !String(doc.PrivateNote ?? '').includes(TRANSFER_PART))
      .flatMap((doc) => markersIn(doc.PrivateNote).map((m) => m.key)),
  );
}

/** The keys of the journals that move an applied check's credit out of Unapplied Cash, or back into it. */
function transferJournals(): string[] {
  return double
    .all(realmId, 'JournalEntry')
    .filter((doc) => String(doc.PrivateNote ?? '').includes(TRANSFER_PART))
    .flatMap((doc) => markersIn(doc.PrivateNote).map((m) => m.key));
}

/** Exactly one QBO record per ledger entry: nothing lost, nothing twice. */
function expectOneQuickBooksDocumentPerEntry(entries: BookedEntry[]): void {
  expect(markers().sort()).toEqual(entries.map((e) => e.key).sort());
  const journals = transferJournals();
  expect(new Set(journals).size).toBe(journals.length);
  const applications = new Set(
    entries.filter((e) => /^(reversal:)?check-application:/.test(e.key)).map((e) => e.key),
  );
  expect(journals.filter((key) => !applications.has(key))).toEqual([]);
  // Every application reversed in QBO's own way (its Payment voided) had its journal reversed too.
  const reversedApplications = journals.filter((key) => key.startsWith('reversal:'));
  for (const key of reversedApplications) expect(journals).toContain(key.slice('reversal:'.length));
  expect(double.violations).toEqual([]);
}

type Linked = { TxnId: string; TxnType: string };
const linkedTxns = (doc: Record<string, unknown>): Linked[] =>
  ((doc.Line as { LinkedTxn?: Linked[] }[] | undefined) ?? []).flatMap((line) => line.LinkedTxn ?? []);
/** `payment:pay_1#2` -> `pay_1`: the service payment a receipt entry books. */
const paymentOf = (key: string) => baseKey(key).slice(baseKey(key).indexOf(':') + 1);

/**
 * After the demo day: each payout's Deposit links exactly the payments the service put in
 * that payout (their Payments and SalesReceipts), and what stays in Undeposited Funds, undeposited in QBO's
 * sense (a receipt no deposit links), is exactly the booked payments no payout carried yet.
 */
async function expectPayoutsEmptyUndepositedFunds(): Promise<void> {
  const ledger = EmbeddedLedger.open({ path: path.join(booksync.dataDir, 'ledger.db') });
  const booked = (await ledger.allEntries().finally(() => ledger.close())).filter(
    (e) => e.reverses === null && e.reversedBy === null,
  );
  const received = booked.filter((e) => /^(payment|sale):/.test(e.key)).map((e) => paymentOf(e.key));
  const { disbursements } = await booksync.service().listDisbursements({ pageSize: 100 });
  expect(disbursements.length).toBeGreaterThan(0);
  const live = (entity: string) =>
    double.all(realmId, entity).filter((d) => !double.isVoided(realmId, entity, String(d.Id)));
  const receiptPayment = (link: Linked) =>
    paymentOf(markersIn(double.get(realmId, link.TxnType, link.TxnId)?.PrivateNote)[0]?.key ?? '?:?');
  const deposits = live('Deposit');
  const paidOut = new Set<string>();
  for (const payout of disbursements) {
    const deposit = deposits.filter((d) =>
      markersIn(d.PrivateNote).some((m) => m.key === `disbursement-pending:${payout.id}`),
    );
    expect(deposit, payout.id).toHaveLength(1);
    const linked = linkedTxns(deposit[0] as Record<string, unknown>)
      .filter((l) => l.TxnType === 'Payment' || l.TxnType === 'SalesReceipt')
      .map(receiptPayment);
    expect(linked.sort(), payout.id).toEqual(payout.paymentIds.filter((id) => received.includes(id)).sort());
    expect(linked.length, payout.id).toBeGreaterThan(0);
    for (const id of payout.paymentIds) paidOut.add(id);
  }
  const undepositedFunds = String(
    double.all(realmId, 'Account').find((a) => a.AccountSubType === 'UndepositedFunds')?.Id,
  );
  const linkedAnywhere = new Set(
    deposits.flatMap((d) => linkedTxns(d as Record<string, unknown>)).map((l) => `${l.TxnType}:${l.TxnId}`),
  );
  const undeposited = ['Payment', 'SalesReceipt'].flatMap((entity) =>
    live(entity)
      .filter(
        (d) =>
          ((d.DepositToAccountRef as { value?: string } | undefined)?.value ?? undepositedFunds) ===
          undepositedFunds,
      )
      .filter((d) => !linkedAnywhere.has(`${entity}:${d.Id}`))
      .map((d) => receiptPayment({ TxnType: entity, TxnId: String(d.Id) })),
  );
  expect(undeposited.sort()).toEqual(received.filter((id) => !paidOut.has(id)).sort());
  // QuickBooks' list of funds to deposit holds nothing a payout carried: no receipt, surcharge, fee or refund
  // of a paid-out payment dated by its payout, booked before or after the payout's entry (one booked after, a
  // refund racing the payout, is linked to the payout's Deposit when pushed). What is dated after its payout
  // is not in it, and waits for the bookkeeper's deposit.
  const payoutEntry = new Map<string, BookedEntry>();
  for (const payout of disbursements) {
    const pending = booked.find((e) => e.key === `disbursement-pending:${payout.id}`);
    if (pending) for (const id of payout.paymentIds) payoutEntry.set(id, pending);
  }
  const carried = new Set(
    booked
      .filter((e) =>
        /^(payment|sale|payment-surcharge|payment-fee|surcharge-fee|payment-other-fee|refund):/.test(e.key),
      )
      .filter((e) => {
        const payout = payoutEntry.get(e.links.paymentId ?? '');
        if (!payout) return false;
        return /^(payment|sale):/.test(e.key) || e.date <= payout.date;
      })
      .map((e) => e.key),
  );
  expect(carried.size).toBeGreaterThan(received.filter((id) => paidOut.has(id)).length);
  const left = double
    .fundsToDeposit(realmId)
    .flatMap((f) => markersIn(double.get(realmId, f.type, f.id)?.PrivateNote).map((m) => m.key));
  expect(left.filter((key) => carried.has(key))).toEqual([]);
}

/** `booksync targets connect quickbooks`'s consent page, the company `company()` allowed. */
function consentPage(company: () => string): ConsentPage {
  return {
    target: 'quickbooks',
    waiting: 'Waiting for QuickBooks',
    address: /https?:\/\/\S+connect\/oauth2\S*/,
    expectConsent(consent) {
      expect(consent.searchParams.get('client_id')).toBe(double.clientId);
      expect(consent.searchParams.get('scope')).toBe('com.intuit.quickbooks.accounting');
    },
    answer: (code, state) => ({
      code: code === 'forged' ? 'forged' : double.authorize(company()),
      state,
      realmId: company(),
    }),
    get connected() {
      return `connected to QuickBooks company ${company()}`;
    },
  };
}

/** The company's chart as set-up changes it. */
function chartOf(company: () => string): TargetChart {
  return { accounts: () => double.all(company(), 'Account').length };
}

const quickbooks: TargetBooksRun = {
  booksync,
  consent: consentPage(() => realmId),
  chart: chartOf(() => realmId),
  books: {
    balanceOf: (code) => double.balanceOf(realmId, code),
    // An invoice's Balance is what is still owed. (An amount changed later is a journal entry in QBO, in the
    // customer's A/R but in no invoice.)
    invoices: () =>
      double.all(realmId, 'Invoice').map((inv) => ({
        keys: markersIn(inv.PrivateNote).map((m) => m.key),
        dueCents: Math.round(Number(inv.Balance) * 100),
      })),
    expectOneDocumentPerEntry: expectOneQuickBooksDocumentPerEntry,
  },
  creates: () => double.creates(realmId),
  maxInFlight: () => double.maxInFlight(realmId),
  inFlightLimit: 10,
  refreshGrants: () => double.refreshGrants,
};

/** The company as a new QBO company starts (the double's default): QBO's chart, none of booksync's accounts. */
function freshCompany(): string {
  const company = double.createRealm();
  const chart = double.all(company, 'Account');
  expect(chart.filter((a) => a.AccountSubType === 'UndepositedFunds').map((a) => a.Name)).toEqual([
    'Undeposited Funds',
  ]);
  expect(chart.filter((a) => a.AcctNum !== undefined || a.Name === 'Operating Bank')).toEqual([]);
  return company;
}

const settings = async (): Promise<NodeJS.ProcessEnv> => ({
  ACCOUNTING_TARGET: 'quickbooks',
  QBO_CLIENT_ID: double.clientId,
  QBO_CLIENT_SECRET: double.clientSecret,
  QBO_TOKEN_KEY: 'e2e-secret-the-refresh-token-is-sealed-with',
  QBO_BASE_URL: double.url,
  QBO_OAUTH_URL: double.url,
  QBO_CONSENT_URL: 'https://appcenter.intuit.com/connect/oauth2',
  QBO_REDIRECT_URI: `http://127.0.0.1:${await freePort()}/quickbooks/callback`,
});

beforeAll(async () => {
  await double.start();
  realmId = freshCompany();
  await booksync.prepare(await settings());
}, 120_000);

afterAll(async () => {
  await booksync.stop('quickbooks-books');
  await newcomer.stop('quickbooks-books-newcomer');
  await double.stop();
});

describe('the demo business day in QuickBooks Online (the double)', { timeout: 900_000 }, () => {
  it('connects by consent, survives a SIGKILL between a create and its index write and every event twice more: one QBO document per entry', async () => {
    await crashThenEverythingTwice(quickbooks, expectPayoutsEmptyUndepositedFunds);
  });

  it('rides out a 429 storm and an outage of several push attempts while a business day goes on: nothing lost, nothing twice', async () => {
    await rideOutStormAndOutage(quickbooks, outageMs, () => {
      double.throttle(40);
      double.outage(outageMs);
    });
    await expectPayoutsEmptyUndepositedFunds();
  });

  it('a revoked connection stops the push with one flagged reason; reconnecting resumes it', async () => {
    await revokeThenReconnect(quickbooks, () => double.revoke(realmId));
  });

  it("a newcomer's way: a new company, connect, set up, `booksync start` books the demo day and closes its month, the certificate passing on QBO's own reports", async () => {
    // Whatever an earlier test left at the double (a storm cut short) is no part of this one.
    double.calm();
    newcomerRealmId = freshCompany();
    await newcomer.prepare({
      ...(await settings()),
      // As a newcomer's `npm start`: the demo's day, then its month closed (the emulator's clock moved).
      DEMO_CLOSES_MONTH: 'true',
      EMULATOR_ADMIN_TOKEN: newcomerAdminToken,
    });
    await freshCompanyToClosedMonth(newcomer, {
      consent: consentPage(() => newcomerRealmId),
      chart: chartOf(() => newcomerRealmId),
      expectReportsRead() {
        const read = double.requests
          .filter((r) => r.realmId === newcomerRealmId && r.method === 'GET')
          .map((r) => /\/reports\/(\w+)/.exec(r.url)?.[1])
          .filter((name) => name !== undefined);
        expect([...new Set(read)]).toEqual(
          expect.arrayContaining(['TrialBalance', 'AgedReceivableDetail', 'AgedPayableDetail']),
        );
      },
    });
    expect(double.violations).toEqual([]);
  });
});
