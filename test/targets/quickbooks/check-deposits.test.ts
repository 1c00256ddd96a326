import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { accountRoles, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { docNumberTag, marker } from '../../../src/targets/quickbooks/keys.js';
import type {
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { appliedWholeBalances, checkDepositScenario, returnedBalances } from '../check-deposit-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposited check booked whole pushed to the QuickBooks double: the deposit a Deposit into
// Checks To Deposit from Unapplied Cash; each application a Payment from Checks To Deposit applied to the
// link's Invoice (a Payment deposits only into an asset account) and a journal Dr Unapplied Cash / Cr Checks To
// Deposit, netting the ledger's Dr Unapplied Cash / Cr A/R while the Invoice's own Balance is the service's
// remainder at every step; the clearing a Deposit to the bank. QBO's own trial balance then equals the
// ledger's, and a returned check leaves everything as before it.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-check-deposits');

type Scenario = Awaited<ReturnType<typeof checkDepositScenario>>;

function contextOf(pushed: Map<string, RemoteRecord>, closedThrough: string | null = null): PushContext {
  return {
    mayExist: () => true,
    refusals: () => 0,
    pushed: (key) => pushed.get(key) ?? null,
    closedThrough,
  };
}

async function pushAll(documents: TargetDocument[]) {
  const { realmId, target } = quickBooksCompany(double, cipher);
  const pushed = new Map<string, RemoteRecord>();
  const adapter = target();
  for (const doc of documents) pushed.set(doc.key, await adapter.push(doc, contextOf(pushed)));
  return { realmId, target: adapter, newTarget: target, pushed };
}

/** The link's invoice in the double, by its number (the link's name). */
function invoiceOf(realmId: string, scenario: Scenario, link: 'A' | 'B') {
  return double.all(realmId, 'Invoice').find((i) => i.DocNumber === `CHK-${link}-${scenario.run}`);
}

/** The role's balance in the double, in cents (debit positive). */
const balance = (realmId: string, role: keyof typeof defaultAccountCodes) =>
  double.balanceOf(realmId, defaultAccountCodes[role]);

/** How many documents of each kind the company holds. */
function counts(realmId: string) {
  return Object.fromEntries(
    ['Invoice', 'Payment', 'JournalEntry', 'Deposit'].map((e) => [e, double.all(realmId, e).length]),
  );
}

const isApplication = (scenario: Scenario, id: string) => (d: TargetDocument) =>
  d.key === `check-application:${id}_${scenario.run}`;

describe('QuickBooks Online: a check deposit booked whole', () => {
  it('a check of 150,000 cents deposited, 100,000 applied, cleared, 50,000 applied after: bank 150,000, A/R and Unapplied Cash 0', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    expect(scenario.ledgerBalances).toEqual(appliedWholeBalances);
    const { realmId, target, pushed } = await pushAll(scenario.documents);
    expect([...pushed.keys()].filter((k) => k.startsWith('check-'))).toHaveLength(4);
    expect(pushed.get(`check-deposited:cd_${scenario.run}`)?.remoteIds[0]).toMatch(/^Deposit:/);
    expect(pushed.get(`check-application:ep2_${scenario.run}`)?.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^JournalEntry:/),
    ]);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(appliedWholeBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});
    expect(invoiceOf(realmId, scenario, 'A')?.Balance).toBe(0);
    expect(invoiceOf(realmId, scenario, 'B')?.Balance).toBe(0);
    expect(double.all(realmId, 'Deposit')).toHaveLength(2);
  });

  it("the application lowers the Invoice's Balance at once; the rest of the check stays a credit in Unapplied Cash until applied", async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const { realmId, target } = quickBooksCompany(double, cipher);
    const adapter = target();
    const pushed = new Map<string, RemoteRecord>();
    const first = scenario.documents.findIndex(isApplication(scenario, 'ep1'));
    for (const doc of scenario.documents.slice(0, first + 1))
      pushed.set(doc.key, await adapter.push(doc, contextOf(pushed)));
    // Applied 1,000.00 to A on 03-03: A paid in QBO's own Invoice, 500.00 of the check unapplied.
    expect(invoiceOf(realmId, scenario, 'A')?.Balance).toBe(0);
    expect(invoiceOf(realmId, scenario, 'B')?.Balance).toBe(500);
    expect(balance(realmId, 'UnappliedCash')).toBe(-500_00);
    expect(balance(realmId, 'ChecksToDeposit')).toBe(1_500_00);
    expect(balance(realmId, 'AccountsReceivable')).toBe(500_00);
    expect(balance(realmId, 'OperatingBank')).toBe(0);
    const figures = await adapter.figuresAsOf('2026-03-31');
    expect(figures.openInvoices).toEqual({ [scenario.links.B]: 500_00 });
    // The payment carries the check's reference and is applied to A's invoice from Checks To Deposit.
    const paymentId = pushed.get(`check-application:ep1_${scenario.run}`)?.remoteIds[0]?.split(':')[1];
    const payment = double.get(realmId, 'Payment', String(paymentId));
    expect(payment?.TotalAmt).toBe(1000);
    expect(payment?.Line).toEqual([
      expect.objectContaining({
        Amount: 1000,
        LinkedTxn: [{ TxnId: invoiceOf(realmId, scenario, 'A')?.Id, TxnType: 'Invoice' }],
      }),
    ]);
    // Cleared on 03-05: the bank has the check, 500.00 still unapplied.
    const second = scenario.documents.findIndex(isApplication(scenario, 'ep2'));
    for (const doc of scenario.documents.slice(first + 1, second))
      pushed.set(doc.key, await adapter.push(doc, contextOf(pushed)));
    expect(balance(realmId, 'OperatingBank')).toBe(1_500_00);
    expect(balance(realmId, 'ChecksToDeposit')).toBe(0);
    expect(balance(realmId, 'UnappliedCash')).toBe(-500_00);
    // The rest applied to B on 03-09, after clearing.
    for (const doc of scenario.documents.slice(second))
      pushed.set(doc.key, await adapter.push(doc, contextOf(pushed)));
    expect(invoiceOf(realmId, scenario, 'B')?.Balance).toBe(0);
    expect(balance(realmId, 'UnappliedCash')).toBe(0);
    expect(balance(realmId, 'ChecksToDeposit')).toBe(0);
    expect(balance(realmId, 'AccountsReceivable')).toBe(0);
  });

  it("a partial application leaves the Invoice's Balance at the service's remainder", async () => {
    const scenario = await checkDepositScenario('applied-after-clearing', { firstApplicationCents: 600_00 });
    const first = scenario.documents.findIndex(isApplication(scenario, 'ep1'));
    const { realmId, target } = await pushAll(scenario.documents.slice(0, first + 1));
    expect(invoiceOf(realmId, scenario, 'A')?.Balance).toBe(400);
    expect(balance(realmId, 'UnappliedCash')).toBe(-900_00);
    expect((await target.figuresAsOf('2026-03-31')).openInvoices).toEqual({
      [scenario.links.A]: 400_00,
      [scenario.links.B]: 500_00,
    });
    const all = await pushAll(scenario.documents);
    const figures = await all.target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(scenario.ledgerBalances, accountRoles));
    expect(scenario.ledgerBalances.UnappliedCash).toBe(-400_00);
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 400_00 });
  });

  it('pushed again by a new adapter (one by one and in batches), nothing is created twice', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const { realmId, newTarget, pushed } = await pushAll(scenario.documents);
    const before = counts(realmId);
    const again = new Map<string, RemoteRecord>();
    for (const doc of scenario.documents) {
      const result = await newTarget().push(doc, contextOf(again));
      expect(result.created).toBe(false);
      expect(result.remoteIds).toEqual(pushed.get(doc.key)?.remoteIds);
      again.set(doc.key, result);
    }
    const batched = await newTarget().pushMany(scenario.documents, contextOf(new Map()));
    for (const [i, doc] of scenario.documents.entries()) {
      const result = batched[i] as PushResult;
      expect(result).not.toBeInstanceOf(Error);
      expect(result.remoteIds).toEqual(pushed.get(doc.key)?.remoteIds);
    }
    expect(counts(realmId)).toEqual(before);
  });

  it('pushed in batches, the Payment and its Unapplied Cash journal are both made, as one by one', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const { realmId, target } = quickBooksCompany(double, cipher);
    const results = await target().pushMany(scenario.documents, contextOf(new Map()));
    const application = scenario.documents.findIndex(isApplication(scenario, 'ep1'));
    expect((results[application] as PushResult).remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^JournalEntry:/),
    ]);
    const figures = await target().figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(appliedWholeBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});
    // Pushed again in batches by a new adapter: found, nothing made twice.
    const before = counts(realmId);
    const again = await target().pushMany(scenario.documents, contextOf(new Map()));
    expect(again.map((r) => (r as PushResult).remoteIds)).toEqual(
      results.map((r) => (r as PushResult).remoteIds),
    );
    expect(counts(realmId)).toEqual(before);
  });

  it('a push that failed after its Payment makes only the Unapplied Cash journal when pushed again', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const first = scenario.documents.findIndex(isApplication(scenario, 'ep1'));
    const { realmId, newTarget, pushed } = await pushAll(scenario.documents.slice(0, first));
    const application = scenario.documents[first] as TargetDocument;
    // The Payment is made, its answer lost: the push fails before the journal.
    double.loseResponses(1);
    await expect(newTarget().push(application, contextOf(pushed))).rejects.toThrow();
    expect(double.all(realmId, 'Payment')).toHaveLength(1);
    const journals = double.all(realmId, 'JournalEntry').length;
    const result = await newTarget().push(application, contextOf(pushed));
    expect(result.remoteIds).toEqual([
      expect.stringMatching(/^Payment:/),
      expect.stringMatching(/^JournalEntry:/),
    ]);
    expect(double.all(realmId, 'Payment')).toHaveLength(1);
    expect(double.all(realmId, 'JournalEntry')).toHaveLength(journals + 1);
    expect(invoiceOf(realmId, scenario, 'A')?.Balance).toBe(0);
    expect(balance(realmId, 'UnappliedCash')).toBe(-500_00);
    expect(balance(realmId, 'ChecksToDeposit')).toBe(1_500_00);
  });

  it('an application an earlier release pushed as one journal (Dr Unapplied Cash / Cr A/R) is found there, not applied again', async () => {
    const scenario = await checkDepositScenario('applied-after-clearing');
    const first = scenario.documents.findIndex(isApplication(scenario, 'ep1'));
    const { realmId, newTarget, pushed } = await pushAll(scenario.documents.slice(0, first));
    const application = scenario.documents[first] as TargetDocument;
    const account = (role: keyof typeof defaultAccountCodes) => ({
      value: String(double.all(realmId, 'Account').find((a) => a.AcctNum === defaultAccountCodes[role])?.Id),
    });
    const legacy = double.seed(realmId, 'JournalEntry', {
      TxnDate: application.date,
      DocNumber: docNumberTag(application.key),
      PrivateNote: marker(application.key, application.contentHash),
      Line: [
        {
          Amount: 1000,
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: { PostingType: 'Debit', AccountRef: account('UnappliedCash') },
        },
        {
          Amount: 1000,
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: {
            PostingType: 'Credit',
            AccountRef: account('AccountsReceivable'),
            Entity: { Type: 'Customer', EntityRef: invoiceOf(realmId, scenario, 'A')?.CustomerRef },
          },
        },
      ],
    });
    const before = counts(realmId);
    const result = await newTarget().push(application, contextOf(pushed));
    expect(result).toMatchObject({ created: false, remoteIds: [`JournalEntry:${legacy.Id}`] });
    expect(counts(realmId)).toEqual(before);
  });

  it('a returned check reverses every document: bank, checks and Unapplied Cash 0, both invoices owed again', async () => {
    const scenario = await checkDepositScenario('returned');
    expect(scenario.ledgerBalances).toEqual(returnedBalances);
    const { realmId, target, newTarget, pushed } = await pushAll(scenario.documents);
    const figures = await target.figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(returnedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 1_000_00, [scenario.links.B]: 500_00 });
    // In the same open month: the Payment voided (A's Invoice open again), its journal reversed.
    expect(invoiceOf(realmId, scenario, 'A')?.Balance).toBe(1000);
    const reversal = pushed.get(`reversal:check-application:ep1_${scenario.run}`);
    expect(reversal?.remoteIds).toEqual([
      expect.stringMatching(/^void:Payment:/),
      expect.stringMatching(/^JournalEntry:/),
    ]);
    const before = counts(realmId);
    const again = new Map<string, RemoteRecord>();
    for (const doc of scenario.documents) {
      const result = await newTarget().push(doc, contextOf(again));
      expect(result.remoteIds).toEqual(pushed.get(doc.key)?.remoteIds);
      again.set(doc.key, result);
    }
    expect(counts(realmId)).toEqual(before);
  });

  it('a returned check pushed in one backlog with its applications (one pushMany, as a worker catching up): every journal reversed', async () => {
    // The application's journal used to be made after the whole backlog's waves, the return's void inside
    // them: the void found no journal to reverse, and the journal made after it kept the check's money in
    // Unapplied Cash (the QuickBooks books scenario and two-month close, off by one returned check).
    const scenario = await checkDepositScenario('returned');
    const { target } = quickBooksCompany(double, cipher);
    const results = await target().pushMany(scenario.documents, contextOf(new Map()));
    expect(results.filter((r) => r instanceof Error)).toEqual([]);
    const reversal = scenario.documents.findIndex(
      (d) => d.key === `reversal:check-application:ep1_${scenario.run}`,
    );
    expect((results[reversal] as PushResult).remoteIds).toEqual([
      expect.stringMatching(/^void:Payment:/),
      expect.stringMatching(/^JournalEntry:/),
    ]);
    const figures = await target().figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(returnedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 1_000_00, [scenario.links.B]: 500_00 });
  });

  it('a check returned after its month was closed: a charge invoice through Unapplied Cash in the open period, nothing closed edited', async () => {
    const scenario = await checkDepositScenario('returned');
    const { realmId, target } = quickBooksCompany(double, cipher);
    const adapter = target();
    const pushed = new Map<string, RemoteRecord>();
    const [before, reversals] = [
      scenario.documents.filter((d) => d.kind !== 'reversal'),
      scenario.documents.filter((d) => d.kind === 'reversal'),
    ];
    for (const doc of before) pushed.set(doc.key, await adapter.push(doc, contextOf(pushed)));
    const paymentId = String(
      pushed.get(`check-application:ep1_${scenario.run}`)?.remoteIds[0]?.split(':')[1],
    );
    double.closeBooks(realmId, '2026-03-31');
    for (const doc of reversals)
      pushed.set(doc.key, await target().push(doc, contextOf(pushed, '2026-03-31')));
    expect(double.isVoided(realmId, 'Payment', paymentId)).toBe(false);
    expect(pushed.get(`reversal:check-application:ep1_${scenario.run}`)?.remoteIds).toEqual([
      expect.stringMatching(/^Invoice:/),
    ]);
    const figures = await target().figuresAsOf('2026-04-30');
    expect(figures.balances).toEqual(withZeros(returnedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({ [scenario.links.A]: 1_000_00, [scenario.links.B]: 500_00 });
  });
});
