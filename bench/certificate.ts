import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Payment, PaymentLink } from '@booksync/service-contract/schemas/index';
import { closeCertificate } from '../src/close/certificate.js';
import { ledgerFiguresAsOf } from '../src/close/target-comparison.js';
import { Accounts } from '../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../src/ledger/embedded-ledger.js';
import type { BookedEntry, LedgerEntryInput } from '../src/ledger/entry.js';
import type { TargetFigures } from '../src/targets/target-figures.js';

// Stage: the three-way close certificate over a large period. N invoices and their payments
// (2N entries) in an SQLite ledger; one target whose own figures agree. Against its baseline, measured in the
// same run: reading the same rows with no comparison. Also the certificate's size as a workflow result
// (Temporal refuses payloads over 2 MB).

export interface CertificateResult {
  entries: number;
  readMs: number;
  /** Read the rows and make the certificate (service ↔ ledger ↔ target). */
  certificateMs: number;
  /** readMs / certificateMs: 1 would mean the comparison costs nothing beyond reading (goal ≥ 0.5). */
  ratio: number;
  peakRssMiB: number;
  certificateBytes: number;
  passes: boolean;
}

const day = '2026-01-15';

export async function benchCertificate(options: {
  invoices: number;
  progress: (line: string) => void;
}): Promise<CertificateResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'booksync-bench-certificate-'));
  const ledger = EmbeddedLedger.open({ path: path.join(dir, 'ledger.db'), synchronous: 'normal' });
  let peak = process.memoryUsage().rss;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  try {
    const links: PaymentLink[] = [];
    const payments: Payment[] = [];
    const page: LedgerEntryInput[] = [];
    const flush = async () => {
      await ledger.postMany(page.splice(0));
    };
    for (let i = 0; i < options.invoices; i++) {
      const link = `pl_${i}`;
      const pay = `pay_${i}`;
      const cents = 1_000 + (i % 97) * 10;
      const paid = i % 4 !== 0 ? cents : 0; // a quarter stay open
      page.push({
        key: `invoice:${link}`,
        date: day,
        description: `Invoice for payment link ${link}`,
        lines: [
          { account: Accounts.AccountsReceivable, amountCents: cents },
          { account: Accounts.Revenue, amountCents: -cents },
        ],
        links: { paymentLinkId: link },
      });
      if (paid > 0) {
        page.push({
          key: `payment:${pay}`,
          date: day,
          description: `Payment ${pay} received`,
          lines: [
            { account: Accounts.ProcessorClearing, amountCents: paid },
            { account: Accounts.AccountsReceivable, amountCents: -paid },
          ],
          links: { paymentLinkId: link, paymentId: pay },
        });
        payments.push({
          id: pay,
          status: 'SUCCEEDED',
          amountInCents: paid,
          platformFeeInCents: 0,
          paymentLinkId: link,
          refunds: [],
          createdAt: Date.parse(`${day}T12:00:00Z`),
        } as unknown as Payment);
      }
      links.push({
        id: link,
        reusable: false,
        requestedAmountCents: cents,
        completedAmountCents: paid,
        debitMemoAmountCents: 0,
        payments: [],
        externalPayments: [],
        debitMemos: [],
      } as unknown as PaymentLink);
      if (page.length >= 2_000) await flush();
    }
    await flush();
    options.progress(`certificate: ${options.invoices} invoices booked`);

    // Baseline: read every row, nothing compared.
    let started = performance.now();
    let count = 0;
    for await (const _ of ledger.entries()) count++;
    const readMs = performance.now() - started;

    // The certificate: the same read, the service's figures, and one target's own figures as of the day.
    started = performance.now();
    const t0 = performance.now();
    const entries: BookedEntry[] = await ledger.allEntries();
    const t1 = performance.now();
    const own = ledgerFiguresAsOf(entries, '2026-01-31');
    const figures: TargetFigures = {
      asOf: '2026-01-31',
      balances: { ...own.balances },
      openInvoices: Object.fromEntries(Object.entries(own.openInvoices).filter(([, c]) => c !== 0)),
      openBills: {},
    };
    const receivables = await ledger.openItems('receivable');
    const t2 = performance.now();
    const certificate = closeCertificate({
      period: { from: '2026-01-01', to: '2026-01-31' },
      asOf: new Date().toISOString(),
      timeZone: 'UTC',
      links,
      payments,
      disbursements: [],
      checkDeposits: [],
      bills: [],
      billPayments: [],
      entries,
      receivables,
      payables: [],
      targets: null,
      targetFigures: [{ target: 'bench', figures }],
    });
    const certificateMs = performance.now() - started;
    options.progress(
      `certificate: allEntries ${(t1 - t0).toFixed(0)} ms, figures+openItems ${(t2 - t1).toFixed(0)} ms, closeCertificate ${(performance.now() - t2).toFixed(0)} ms`,
    );
    const certificateBytes = Buffer.byteLength(JSON.stringify(certificate));
    options.progress(
      `certificate: ${count} entries read in ${readMs.toFixed(0)} ms; certificate in ${certificateMs.toFixed(0)} ms, ${certificateBytes} bytes, ${certificate.passes ? 'passes' : `FAILS: ${certificate.problems.slice(0, 3).join('; ')}`}`,
    );
    return {
      entries: count,
      readMs: Math.round(readMs),
      certificateMs: Math.round(certificateMs),
      ratio: Math.round((readMs / certificateMs) * 100) / 100,
      peakRssMiB: Math.round(peak / 2 ** 20),
      certificateBytes,
      passes: certificate.passes,
    };
  } finally {
    clearInterval(sample);
    ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
