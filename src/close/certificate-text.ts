import { formatUsd as usd } from '../ledger/money.js';
import { table } from '../payouts/report-text.js';
import type { CloseCertificate } from './certificate.js';
import {
  balanceRow,
  objectColumns,
  objectRow,
  periodFigureColumns,
  periodFigureRow,
} from './certificate-tables.js';

// The certificate as a person reads it in a terminal: the verdict first, then what fails, then the tables.

export function certificateLines(c: CloseCertificate): string[] {
  const lines: string[] = [];
  lines.push(`period close ${c.from} to ${c.to}: ${c.passes ? 'PASSES' : 'FAILS'} (as of ${c.asOf})`);
  const n = c.counts;
  lines.push(
    `objects ${n.objects}: ${n.BOOKED} booked, ${n.SKIPPED} skipped, ${n.MISSING} missing, ${n.DUPLICATE} duplicate, ${n.AMOUNT_DIFFERS} amount differs; entries ${n.entries}, orphans ${n.orphans}`,
  );
  if (c.problems.length > 0) {
    lines.push('problems');
    for (const p of c.problems) lines.push(`  ${p}`);
  }
  lines.push(`balances as of the end of ${c.to} (${c.timeZone})`);
  lines.push(
    ...table(
      [['account', 'books', 'service', ''], ...c.balances.map(balanceRow)],
      [false, true, true, false],
    ).map((l) => `  ${l}`),
  );
  for (const b of c.balances) lines.push(`  ${b.title}: ${b.basis}`);
  const docs = (
    title: string,
    rows: CloseCertificate['receivables'],
    n: { agree: number; differ: number },
  ) => {
    const bad = rows.filter((r) => !r.ok);
    lines.push(`${title} as of the run: ${n.agree} of ${n.agree + n.differ} agree`);
    if (bad.length > 0) {
      lines.push(
        ...table(
          [
            ['document', 'books', 'service'],
            ...bad.map((r) => [r.documentId, usd(r.booksCents), usd(r.serviceCents)]),
          ],
          [false, true, true],
        ).map((l) => `  ${l}`),
      );
    }
  };
  docs('receivables per invoice', c.receivables, c.documentCounts.receivables);
  docs('payables per bill', c.payables, c.documentCounts.payables);
  lines.push(...periodEndLines(c));
  if (c.targets === null) lines.push('accounting targets: none configured');
  else
    for (const t of c.targets) {
      lines.push(
        `target ${t.target}: ${t.pushed} pushed, ${t.skipped} skipped, ${t.notPushed.length} not pushed of ${t.entries}`,
      );
      for (const p of t.notPushed) lines.push(`  ${p.key}: ${p.status}${p.reason ? ` (${p.reason})` : ''}`);
    }
  for (const t of c.targetFigures ?? []) {
    lines.push(
      `target ${t.target}'s own figures as of ${t.asOf}: ${t.ok ? 'agree' : 'DIFFER'} (${t.agreeingDocuments} open documents agree, ${t.documents.length} differ)`,
    );
    lines.push(
      ...table(
        [
          ['account', 'ledger', 'target', ''],
          ...t.accounts.map((a) => [
            a.role,
            usd(a.ledgerCents),
            usd(a.targetCents),
            a.compared ? (a.ok ? 'ok' : 'DIFFERS') : 'shown',
          ]),
        ],
        [false, true, true, false],
      ).map((l) => `  ${l}`),
    );
    for (const d of t.documents)
      lines.push(`  ${d.kind} ${d.id}: ledger ${usd(d.ledgerCents)}, target ${usd(d.targetCents)}`);
  }
  const f = c.flow;
  lines.push(
    `money flow: received ${usd(f.receivedCents)}, fees ${usd(f.feesCents)}, refunds ${usd(f.refundsCents)}, disbursed ${usd(f.disbursedCents)}, reached the bank ${usd(f.reachedBankCents)}`,
  );
  const waiting = c.checksToDeposit ?? [];
  if (waiting.length > 0) {
    const total = waiting.reduce((sum, w) => sum + w.amountCents, 0);
    lines.push(
      `checks to deposit at the end of ${c.to}: ${waiting.length} external payments, ${usd(total)}, on no deposit slip (a finding, oldest first)`,
    );
    for (const w of waiting)
      lines.push(
        `  ${w.paidOn} (${w.ageDays} days): ${usd(w.amountCents)}, external payment ${w.externalPaymentId} on payment link ${w.paymentLinkId}`,
      );
  }
  lines.push('objects');
  lines.push(
    ...table([objectColumns, ...c.objects.map(objectRow)], [false, false, false, true, false, false]).map(
      (l) => `  ${l}`,
    ),
  );
  if (c.bookedNotListed > 0)
    lines.push(`  ... and ${c.bookedNotListed} more booked objects (counted, not listed)`);
  for (const o of c.orphanEntries) lines.push(`orphan entry ${o.key} (${o.date}): ${o.detail}`);
  lines.push(...scopeLines(c));
  lines.push(`certificate: ${c.passes ? 'passes' : 'fails'}`);
  return lines;
}

/** The documents as of the period's end and the period's figures against the service (absent from older certificates). */
function periodEndLines(c: CloseCertificate): string[] {
  const lines: string[] = [];
  const atEnd = c.documentsAtEnd;
  if (atEnd) {
    for (const [title, rows, n] of [
      ['receivables per invoice', atEnd.receivables, atEnd.counts.receivables],
      ['payables per bill', atEnd.payables, atEnd.counts.payables],
    ] as const) {
      lines.push(`${title} as of the end of ${atEnd.asOf}: ${n.agree} of ${n.agree + n.differ} agree`);
      for (const r of rows.filter((x) => !x.ok))
        lines.push(`  ${r.documentId}: books ${usd(r.booksCents)}, service ${usd(r.serviceCents)}`);
    }
  }
  const figures = c.periodFigures ?? [];
  if (figures.length > 0) {
    lines.push(`the period's figures against the service, ${c.from} to ${c.to}`);
    lines.push(
      ...table(
        [[...periodFigureColumns.slice(0, -1), ''], ...figures.map(periodFigureRow)],
        [false, true, true, true, true, false],
      ).map((l) => `  ${l}`),
    );
    for (const f of figures) {
      lines.push(`  ${f.title}: ${f.basis}`);
      if (f.otherBooksCents !== undefined)
        lines.push(
          `  ${f.title}: its other movements in the period ${usd(f.otherBooksCents)} (shown, not compared)`,
        );
    }
  }
  return lines;
}

/** The findings (named, not failing), and what the certificate proves and cannot. */
function scopeLines(c: CloseCertificate): string[] {
  const lines: string[] = [];
  if ((c.findings ?? []).length > 0) {
    lines.push('findings (named, not failing)');
    for (const f of c.findings ?? []) lines.push(`  ${f}`);
  }
  if (c.proves) {
    lines.push('this certificate proves');
    for (const p of c.proves) lines.push(`  - ${p}`);
  }
  if (c.cannotProve) {
    lines.push('this certificate cannot prove');
    for (const p of c.cannotProve) lines.push(`  - ${p}`);
  }
  return lines;
}
