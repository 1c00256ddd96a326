import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresTargetIndex } from '../../src/flows/push/postgres-target-index.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { PostgresLedger } from '../../src/ledger/postgres-ledger.js';
import { twoLine } from '../ledger/fixtures.js';
import { booksyncCli as booksync } from '../support/booksync-cli.js';
import type { PostgresCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';

// `booksync ledger` and `booksync targets status` as a person runs them with LEDGER_URL: the books and the
// target index are read from PostgreSQL, and the url's password never reaches the console.

let cluster: PostgresCluster;
let url: string;

beforeAll(async () => {
  cluster = await sharedPostgres({ name: 'ledger-cli' });
  url = await cluster.createDatabase('books');
  const ledger = await PostgresLedger.open({ url });
  try {
    const links = { paymentLinkId: 'pl1', customerId: 'c1' };
    await ledger.post(
      twoLine('invoice:pl1', 5_000, { debit: Accounts.AccountsReceivable, credit: Accounts.Revenue, links }),
    );
    await ledger.post(twoLine('payment:p1', 5_000, { links: { ...links, paymentId: 'p1' } }));
    await ledger.reverse('payment:p1', { reason: 'ACH return', date: '2026-02-01' });
    const index = new PostgresTargetIndex(ledger.pool);
    const invoice = await ledger.get('invoice:pl1');
    if (invoice)
      await index.record('ledger-mirror', invoice, { status: 'FAILED', reason: 'no such account' });
  } finally {
    await ledger.close();
  }
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('the CLI with LEDGER_URL', () => {
  it('reads the trial balance, a link and the receivables from PostgreSQL', async () => {
    const trial = await booksync(['ledger', 'trial-balance', '--json'], { LEDGER_URL: url });
    expect(trial.code, trial.stderr).toBe(0);
    expect(JSON.parse(trial.stdout)).toMatchObject({ balanced: true, totalDebitCents: 15_000 });
    const link = await booksync(['ledger', 'link', 'pl1', '--json'], { LEDGER_URL: url });
    expect(
      JSON.parse(link.stdout).items.map((i: { key: string; status: string }) => [i.key, i.status]),
    ).toEqual([
      ['invoice:pl1', 'live'],
      ['payment:p1', 'reversed'],
      ['reversal:payment:p1', 'reversal'],
    ]);
    const receivables = await booksync(['ledger', 'receivables', '--json'], { LEDGER_URL: url });
    expect(JSON.parse(receivables.stdout)).toEqual({
      receivables: [{ documentId: 'pl1', counterpartyId: 'c1', openCents: 5_000 }],
    });
  }, 60_000);

  it('reads the target index from the same database', async () => {
    const status = await booksync(['targets', 'status', '--json'], {
      LEDGER_URL: url,
      ACCOUNTING_TARGET: 'ledger-mirror',
    });
    expect(status.code, status.stderr).toBe(1);
    expect(JSON.parse(status.stdout).targets).toMatchObject([
      {
        target: 'ledger-mirror',
        pending: 2,
        failed: 1,
        failures: [{ key: 'invoice:pl1', reason: 'no such account' }],
      },
    ]);
  }, 60_000);

  it('stops with one line that names the database without its password', async () => {
    const run = await booksync(['ledger', 'trial-balance'], {
      LEDGER_URL: 'postgres://booksync:s3cret-pw@127.0.0.1:1/books',
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('postgres://booksync:***@127.0.0.1:1/books');
    expect(run.stderr + run.stdout).not.toContain('s3cret-pw');
  }, 60_000);
});
