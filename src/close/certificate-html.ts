import { formatUsd as usd } from '../ledger/money.js';
import type { CloseCertificate } from './certificate.js';
import type { MoneyFlow } from './certificate-checks.js';
import {
  balanceRow,
  objectColumns,
  objectRow,
  periodFigureColumns,
  periodFigureRow,
} from './certificate-tables.js';

// The certificate as one self-contained HTML page: inline CSS, an inline SVG chart of the period's money
// from receipts through Processor Clearing to the bank, and the tables. No script, no external asset.

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => escapes[ch]!);

function tableHtml(id: string, head: string[], rows: string[][], rowClass?: (i: number) => string): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map(
      (r, i) =>
        `<tr${rowClass ? ` class="${rowClass(i)}"` : ''}>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table id="${id}"><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * Five steps left to right: received into Processor Clearing, fees and refunds taken out of it, disbursed
 * to Payouts In Transit, reached the Operating Bank. Bar heights are proportional to the largest amount.
 */
export function flowSvg(flow: MoneyFlow): string {
  const steps: { id: string; label: string; cents: number; color: string }[] = [
    { id: 'received', label: 'Received', cents: flow.receivedCents, color: '#2e7d32' },
    { id: 'fees', label: 'Fees', cents: flow.feesCents, color: '#c62828' },
    { id: 'refunds', label: 'Refunds', cents: flow.refundsCents, color: '#ef6c00' },
    { id: 'disbursed', label: 'Disbursed (in transit)', cents: flow.disbursedCents, color: '#1565c0' },
    { id: 'bank', label: 'Reached the bank', cents: flow.reachedBankCents, color: '#283593' },
  ];
  const width = 760;
  const height = 300;
  const top = 40;
  const base = 240;
  const slot = width / steps.length;
  const max = Math.max(1, ...steps.map((s) => s.cents));
  const bars = steps
    .map((s, i) => {
      const h = Math.round(((base - top) * s.cents) / max);
      const x = Math.round(i * slot + slot * 0.2);
      const w = Math.round(slot * 0.6);
      const arrow =
        i < steps.length - 1
          ? `<path d="M${x + w + 4} ${base - 10} L${Math.round((i + 1) * slot + slot * 0.2) - 4} ${base - 10}" stroke="#555" marker-end="url(#arrow)"/>`
          : '';
      return `<g class="step" data-step="${s.id}" data-cents="${s.cents}">
  <rect x="${x}" y="${base - h}" width="${w}" height="${h}" fill="${s.color}"><title>${escapeHtml(s.label)}: ${usd(s.cents)}</title></rect>
  <text x="${x + w / 2}" y="${base - h - 6}" text-anchor="middle" class="amount">${usd(s.cents)}</text>
  <text x="${x + w / 2}" y="${base + 20}" text-anchor="middle">${escapeHtml(s.label)}</text>
  ${arrow}
</g>`;
    })
    .join('\n');
  return `<svg id="flow" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="Money flow of the period">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0 0 L10 5 L0 10 z" fill="#555"/></marker></defs>
<text x="10" y="20" class="caption">From receipts through Processor Clearing to the bank</text>
<line x1="0" y1="${base}" x2="${width}" y2="${base}" stroke="#999"/>
${bars}
</svg>`;
}

export function certificateHtml(c: CloseCertificate): string {
  const verdict = c.passes ? 'PASSES' : 'FAILS';
  const n = c.counts;
  const problems =
    c.problems.length === 0
      ? '<p id="no-problems">Every check passes.</p>'
      : `<ul id="problems">${c.problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>`;
  const objects = tableHtml('objects', objectColumns, c.objects.map(objectRow), (i) =>
    ['BOOKED', 'SKIPPED'].includes(c.objects[i]!.status) ? 'ok' : 'bad',
  );
  const balances = `<p id="balances-as-of">As of the end of ${escapeHtml(c.to)} (${escapeHtml(c.timeZone)}): the service's figures from its objects' own dates, the books' from the entries dated (economic date) on or before that day.</p>
${tableHtml(
  'balances',
  ['account', 'books', 'service', 'check', 'basis'],
  c.balances.map((b) => [...balanceRow(b), b.basis]),
  (i) => (c.balances[i]!.ok ? 'ok' : 'bad'),
)}`;
  const docs = (id: string, rows: CloseCertificate['receivables'], n: { agree: number; differ: number }) =>
    `<p id="${id}-counts">${n.agree} of ${n.agree + n.differ} agree${
      n.agree + n.differ > rows.length ? ` (${n.agree + n.differ - rows.length} agreeing not listed)` : ''
    }.</p>${tableHtml(
      id,
      ['document', 'books', 'service', 'check'],
      rows.map((r) => [r.documentId, usd(r.booksCents), usd(r.serviceCents), r.ok ? 'ok' : 'DIFFERS']),
      (i) => (rows[i]!.ok ? 'ok' : 'bad'),
    )}`;
  const targets = targetsHtml(c);
  const figures = targetFiguresHtml(c);
  const orphans =
    c.orphanEntries.length === 0
      ? ''
      : `<h2>Entries without a service object</h2>${tableHtml(
          'orphans',
          ['entry', 'date', 'why'],
          c.orphanEntries.map((o) => [o.key, o.date, o.detail]),
          () => 'bad',
        )}`;
  const waiting = c.checksToDeposit ?? [];
  const checks =
    waiting.length === 0
      ? ''
      : `<h2>Checks to deposit</h2>
<p>External payments recorded as received and on no deposit slip at the end of ${escapeHtml(c.to)}, oldest first: a finding, not a failure.</p>${tableHtml(
          'checks-to-deposit',
          ['paid', 'days', 'amount', 'external payment', 'payment link'],
          waiting.map((w) => [
            w.paidOn,
            String(w.ageDays),
            usd(w.amountCents),
            w.externalPaymentId,
            w.paymentLinkId,
          ]),
        )}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Period close ${escapeHtml(c.from)} to ${escapeHtml(c.to)}: ${verdict}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
h1 .verdict { padding: 0 .4em; border-radius: .2em; color: #fff; }
h1 .passes { background: #2e7d32; } h1 .fails { background: #c62828; }
table { border-collapse: collapse; margin: .5rem 0 1.5rem; }
th, td { border: 1px solid #ccc; padding: .2rem .6rem; text-align: left; font-variant-numeric: tabular-nums; }
tr.bad td { background: #fdecea; } #problems li { color: #c62828; }
svg text { font-size: 12px; fill: #222; } svg .caption { font-weight: bold; }
</style>
</head>
<body>
<h1>Period close ${escapeHtml(c.from)} to ${escapeHtml(c.to)} <span id="verdict" class="verdict ${c.passes ? 'passes' : 'fails'}">${verdict}</span></h1>
<p id="summary">As of ${escapeHtml(c.asOf)}: ${n.objects} service objects, ${n.BOOKED} booked, ${n.SKIPPED} skipped, ${n.MISSING} missing, ${n.DUPLICATE} duplicate, ${n.AMOUNT_DIFFERS} amount differs; ${n.entries} entries in the period, ${n.orphans} without a service object.</p>
<h2>Problems</h2>
${problems}
<h2>Money flow</h2>
${flowSvg(c.flow)}
<h2>Balances</h2>
${balances}
<h2>Receivables per invoice, as of the run</h2>
${docs('receivables', c.receivables, c.documentCounts.receivables)}
<h2>Payables per bill, as of the run</h2>
${docs('payables', c.payables, c.documentCounts.payables)}
${periodEndHtml(c)}
<h2>Accounting targets</h2>
${targets}
${figures}
<h2>Service objects</h2>
${objects}
${c.bookedNotListed > 0 ? `<p id="not-listed">and ${c.bookedNotListed} more booked objects (counted, not listed)</p>` : ''}
${orphans}
${checks}
${scopeHtml(c)}
<h2>Notes</h2>
<ul>${c.notes.map((x) => `<li>${escapeHtml(x)}</li>`).join('')}</ul>
</body>
</html>
`;
}

/** Each accounting target's index over the period's entries, or that none is configured. */
function targetsHtml(c: CloseCertificate): string {
  return c.targets === null
    ? '<p id="targets">No accounting target is configured.</p>'
    : tableHtml(
        'targets',
        ['target', 'entries', 'pushed', 'skipped', 'not pushed'],
        c.targets.map((t) => [
          t.target,
          String(t.entries),
          String(t.pushed),
          String(t.skipped),
          t.notPushed.map((p) => `${p.key} ${p.status}`).join(', '),
        ]),
        (i) => (c.targets![i]!.ok ? 'ok' : 'bad'),
      );
}

/**
 * Each target's own figures as of the period's last day: its accounts (compared or shown) and the documents
 * whose open amounts differ.
 */
function targetFiguresHtml(c: CloseCertificate): string {
  return (c.targetFigures ?? [])
    .map(
      (t, k) => `<h3>${escapeHtml(t.target)}: its own figures as of ${escapeHtml(t.asOf)}</h3>
${tableHtml(
  `target-figures-${k}`,
  ['account', 'ledger', 'target', 'check'],
  t.accounts.map((a) => [
    a.role,
    usd(a.ledgerCents),
    usd(a.targetCents),
    a.compared ? (a.ok ? 'ok' : 'DIFFERS') : 'shown',
  ]),
  (i) => (t.accounts[i]!.ok ? 'ok' : 'bad'),
)}
<p>${t.agreeingDocuments} open invoices and bills agree${t.documents.length ? '; these differ:' : '.'}</p>
${
  t.documents.length
    ? tableHtml(
        `target-documents-${k}`,
        ['document', 'ledger', 'target', 'ledger entries'],
        t.documents.map((d) => [
          `${d.kind} ${d.id}`,
          usd(d.ledgerCents),
          usd(d.targetCents),
          d.entries.join(', '),
        ]),
        () => 'bad',
      )
    : ''
}`,
    )
    .join('\n');
}

/** The documents as of the period's end and the period's figures against the service (absent from older certificates). */
function periodEndHtml(c: CloseCertificate): string {
  const parts: string[] = [];
  const atEnd = c.documentsAtEnd;
  if (atEnd) {
    for (const [id, title, rows, n] of [
      ['receivables-at-end', 'Receivables per invoice', atEnd.receivables, atEnd.counts.receivables],
      ['payables-at-end', 'Payables per bill', atEnd.payables, atEnd.counts.payables],
    ] as const) {
      parts.push(`<h2>${title}, as of the end of ${escapeHtml(atEnd.asOf)}</h2>
<p id="${id}-counts">${n.agree} of ${n.agree + n.differ} agree.</p>${tableHtml(
        id,
        ['document', 'books', 'service', 'check'],
        rows.map((r) => [r.documentId, usd(r.booksCents), usd(r.serviceCents), r.ok ? 'ok' : 'DIFFERS']),
        (i) => (rows[i]!.ok ? 'ok' : 'bad'),
      )}`);
    }
  }
  const figures = c.periodFigures ?? [];
  if (figures.length > 0) {
    parts.push(`<h2>The period's figures against the service</h2>
${tableHtml(
  'period-figures',
  [...periodFigureColumns, 'basis'],
  figures.map((f) => [
    ...periodFigureRow(f),
    f.otherBooksCents === undefined
      ? f.basis
      : `${f.basis} Other movements in the period: ${usd(f.otherBooksCents)}.`,
  ]),
  (i) => (figures[i]!.ok ? 'ok' : 'bad'),
)}`);
  }
  return parts.join('\n');
}

/** The findings (named, not failing), and what the certificate proves and cannot. */
function scopeHtml(c: CloseCertificate): string {
  const list = (id: string, items: readonly string[]) =>
    `<ul id="${id}">${items.map((x) => `<li>${escapeHtml(x)}</li>`).join('')}</ul>`;
  const findings = c.findings ?? [];
  return [
    findings.length > 0 ? `<h2>Findings (named, not failing)</h2>\n${list('findings', findings)}` : '',
    c.proves ? `<h2>What this certificate proves</h2>\n${list('proves', c.proves)}` : '',
    c.cannotProve ? `<h2>What it cannot prove</h2>\n${list('cannot-prove', c.cannotProve)}` : '',
  ]
    .filter((x) => x !== '')
    .join('\n');
}
