import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithTarget, ledgerFiguresAsOf } from '../../../src/close/target-comparison.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import type { BookedEntry, EntryLinks } from '../../../src/ledger/entry.js';
import { accountRoles, defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import type { RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { dateOf, decimalOf } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { closedPeriodDocuments } from '../closed-period-documents.js';
import { februaryFigures, figuresDocuments, januaryFigures, withZeros } from '../figures-documents.js';

// The Tryton side, against a real Tryton 8.2 on PostgreSQL (test/support/tryton.ts), no mocks:
// documents pushed through the adapter, then Tryton's own figures as of January 31 and February 28 (its
// account balances under {date, posted}, the receivable and payable lines its Aged Balance counts, per
// invoice) equal the hand-computed ones; a payment's reversal after January is closed counts under its link;
// the close certificate's comparison with the ledger built from the same entries passes, and fails naming
// the link once a bookkeeper adds a payment to an invoice by hand in Tryton.
// The tests share one Tryton and run in order: each compares with the ledger of every entry pushed so far.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);

/** The ledger's side: every entry pushed in this file, as the ledger books it (roles to accounts, links). */
const booked: BookedEntry[] = [];
const { pushed, context } = pushIndex({ mayExist: true });

async function push(doc: TargetDocument, links: EntryLinks = linksOf(doc)): Promise<RemoteRecord> {
  const result = await connect().push(doc, context);
  pushed.set(doc.key, result);
  booked.push({
    id: booked.length + 1,
    key: doc.key,
    date: doc.date,
    description: doc.description,
    lines: doc.lines.map((l) => ({ account: Accounts[l.role], amountCents: l.amountCents })),
    links,
    reverses: doc.reverses ?? null,
    reversedBy: null,
    contentHash: doc.contentHash,
    createdAt: new Date().toISOString(),
  });
  return result;
}

function linksOf(doc: TargetDocument): EntryLinks {
  return {
    ...(doc.invoice ? { paymentLinkId: doc.invoice.paymentLinkId } : {}),
    ...(doc.bill ? { billId: doc.bill.billId } : {}),
  };
}

/** The close certificate's third side for Tryton as of a day: the ledger so far against Tryton's own figures. */
async function certificate(day: string) {
  return compareWithTarget('tryton', ledgerFiguresAsOf(booked, day), await connect().figuresAsOf(day));
}

const idOf = (record: RemoteRecord | undefined, model: string) =>
  Number(record?.remoteIds.find((r) => r.startsWith(`${model},`))?.split(',')[1]);

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

describe('Tryton: its own figures as of a day', { timeout: 300_000 }, () => {
  it('reports each role’s balance and the open amount per link and bill, as of each month end', async () => {
    const f = figuresDocuments();
    for (const doc of [...f.january, ...f.february]) await push(doc);

    const january = januaryFigures(f);
    const february = februaryFigures(f);
    // Link A: invoiced 100.00 on January 5, 60.00 paid on January 15 (40.00 open at the end of January),
    // the rest on February 3 (nothing open at the end of February, though Tryton dates the reconciliation
    // on the invoice's maturity, later).
    expect(await connect().figuresAsOf('2026-01-31')).toEqual({
      ...january,
      balances: withZeros(january.balances, accountRoles),
    });
    expect(await connect().figuresAsOf('2026-02-28')).toEqual({
      ...february,
      balances: withZeros(february.balances, accountRoles),
    });
    // A day before any of it, in Tryton's fiscal year 2025: nothing.
    expect(await connect().figuresAsOf('2025-12-31')).toEqual({
      asOf: '2025-12-31',
      balances: withZeros({}, accountRoles),
      openInvoices: {},
      openBills: {},
    });
    // A day no fiscal year of Tryton's holds has no figures in Tryton: refused, not read as zeros.
    await expect(connect().figuresAsOf('2019-06-30')).rejects.toThrow(/no fiscal year holding 2019-06-30/);

    for (const day of ['2026-01-31', '2026-02-28']) {
      const result = await certificate(day);
      expect(result.problems).toEqual([]);
      expect(result.ok).toBe(true);
    }
  });

  it('counts a payment’s reversal after January is closed under its link, its line open on the party', async () => {
    // Two invoices due January 12, each paid in full on January 15: Tryton reconciles each in January.
    const paidInFull = () => {
      const docs = closedPeriodDocuments();
      const invoice: TargetDocument = {
        ...docs.invoice,
        invoice: {
          ...(docs.invoice.invoice as NonNullable<TargetDocument['invoice']>),
          dueDate: '2026-01-12',
        },
      };
      const payment: TargetDocument = {
        ...docs.january,
        amountCents: 120_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 120_00 },
          { role: 'AccountsReceivable', amountCents: -120_00 },
        ],
      };
      const reversal: TargetDocument = {
        ...docs.januaryReversed,
        amountCents: 120_00,
        lines: payment.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      };
      return { link: docs.invoice.invoice?.paymentLinkId as string, invoice, payment, reversal };
    };
    const noted = paidInFull();
    const older = paidInFull();
    for (const d of [noted, older]) {
      await push(d.invoice);
      await push(d.payment);
    }
    const before = await connect().figuresAsOf('2026-01-31');
    expect(before.openInvoices[noted.link]).toBeUndefined();
    expect(before.openInvoices[older.link]).toBeUndefined();

    await tryton.setPeriodState('2026-01-15', 'close');
    try {
      // The ledger's reversal belongs to the link; its move in Tryton says so after its marker.
      const reversed = await push(noted.reversal);
      const [move] = await tryton.rpc.model<{ description: string; date: unknown }[]>(
        'account.move',
        'read',
        [idOf(reversed, 'account.move')],
        ['description'],
      );
      expect(move?.description).toContain(`booksync link=${noted.link}`);
      // A reversal written without the owner note (as before this release): the line it reverses, a payment
      // line of the link's invoice, names the link.
      const { invoice: _, ...unnoted } = older.reversal;
      const reversedOlder = await push(unnoted, { paymentLinkId: older.link });
      const [olderMove] = await tryton.rpc.model<{ description: string }[]>(
        'account.move',
        'read',
        [idOf(reversedOlder, 'account.move')],
        ['description'],
      );
      expect(olderMove?.description).not.toContain('booksync link=');

      // Each reversal's receivable line stays open on the party (the January reconciliation is closed):
      // owed again as of February 28, not as of January 31.
      const lines = await tryton.rpc.searchRead<{ reconciliation: number | null }>(
        'account.move.line',
        [
          ['move', 'in', [idOf(reversed, 'account.move'), idOf(reversedOlder, 'account.move')]],
          ['party', '!=', null],
        ],
        ['reconciliation'],
      );
      expect(lines.map((l) => l.reconciliation)).toEqual([null, null]);
      const february = await connect().figuresAsOf('2026-02-28');
      expect(february.openInvoices[noted.link]).toBe(120_00);
      expect(february.openInvoices[older.link]).toBe(120_00);
      expect((await connect().figuresAsOf('2026-01-31')).openInvoices).toEqual(before.openInvoices);

      for (const day of ['2026-01-31', '2026-02-28']) {
        const result = await certificate(day);
        expect(result.problems).toEqual([]);
        expect(result.ok).toBe(true);
      }
    } finally {
      await tryton.setPeriodState('2026-01-15', 'reopen');
    }
  });

  it('the certificate fails naming the link when a bookkeeper adds a payment to its invoice by hand in Tryton', async () => {
    const f = figuresDocuments();
    for (const doc of f.january) await push(doc);
    const link = f.links.B.paymentLinkId;
    expect((await certificate('2026-01-31')).ok).toBe(true);

    // By hand in Tryton: 25.00 received from link B's customer into the bank on January 28, added to its
    // invoice's payment lines, posted.
    const [invoice] = await tryton.rpc.searchRead<{ id: number; party: number; account: number }>(
      'account.invoice',
      [
        ['comment', '=', `booksync-link:${link}`],
        ['description', 'like', 'booksync:invoice:%'],
      ],
      ['party', 'account'],
    );
    const [bank] = await tryton.rpc.model<number[]>(
      'account.account',
      'search',
      [['code', '=', defaultAccountCodes.OperatingBank]],
      0,
      1,
      null,
    );
    const [journal] = await tryton.rpc.model<number[]>(
      'account.journal',
      'search',
      [['code', '=', 'MISC']],
      0,
      1,
      null,
    );
    const [period] = await tryton.rpc.model<number[]>(
      'account.period',
      'search',
      [
        ['start_date', '<=', dateOf('2026-01-28')],
        ['end_date', '>=', dateOf('2026-01-28')],
        ['type', '=', 'standard'],
      ],
      0,
      1,
      null,
    );
    const [manual] = await tryton.rpc.model<number[]>('account.move', 'create', [
      {
        journal,
        period,
        date: dateOf('2026-01-28'),
        description: 'Cheque from the customer, keyed in by the bookkeeper',
        lines: [
          [
            'create',
            [
              { account: bank, debit: decimalOf(25_00), credit: decimalOf(0) },
              {
                account: invoice?.account,
                party: invoice?.party,
                debit: decimalOf(0),
                credit: decimalOf(25_00),
                invoice_payment: invoice?.id,
              },
            ],
          ],
        ],
      },
    ]);
    await tryton.rpc.model('account.move', 'post', [manual]);

    const figures = await connect().figuresAsOf('2026-01-31');
    expect(figures.openInvoices[link]).toBe(265_00 - 25_00);
    const result = await certificate('2026-01-31');
    expect(result.ok).toBe(false);
    expect(result.documents).toEqual([
      expect.objectContaining({ kind: 'invoice', id: link, ledgerCents: 265_00, targetCents: 240_00 }),
    ]);
    expect(result.problems).toEqual([
      `tryton: invoice ${link} open as of 2026-01-31: ledger 26500 cents, target 24000 cents (ledger entries: invoice:${link}, debit-memo:dm1_${f.run})`,
    ]);
    // The day before the cheque, Tryton's figures still agree with the ledger's.
    expect((await certificate('2026-01-27')).ok).toBe(true);
  });
});
