import { formatUsd } from '../../ledger/money.js';
import type { PayoutPeriodReport, PayoutReport } from '../../payouts/report-schema.js';
import { html, joinHtml } from '../html.js';
import { page } from '../layout.js';
import type { RecentPayoutsPage } from '../recent-payouts.js';
import type { ConsoleSession } from '../sessions.js';

export interface PayoutsData {
  disbursementId: string;
  from: string;
  to: string;
  report: PayoutReport | null;
  period: PayoutPeriodReport | null;
  /** The most recent payouts, from the books (the page without a query). */
  recent: RecentPayoutsPage | null;
  error: string | null;
}

const usd = (cents: number | null) => (cents === null ? 'in transit' : formatUsd(cents));

export function payoutReportHtml(r: PayoutReport) {
  return html`<section aria-labelledby="payout-h" id="payout" data-reconciles="${r.reconciles}">
<h2 id="payout-h">Payout <code>${r.disbursementId}</code>: <span class="${r.reconciles ? 'ok' : 'bad'}">${
    r.reconciles ? 'reconciles' : 'does not reconcile'
  }</span></h2>
<p>${r.status}, sent ${formatUsd(r.amountCents)} to ${r.bankAccount}${r.createdAt ? ` on ${r.createdAt}` : ''}; reached the bank: ${usd(
    r.reachedBankCents,
  )}. Its payments are worth ${formatUsd(r.totals.netCents)} now (difference ${formatUsd(r.differenceCents)}).</p>
<table id="payout-payments"><caption class="muted">Payments</caption><thead><tr><th scope="col">payment</th><th scope="col">invoice</th><th scope="col">method</th><th scope="col">status</th>
<th scope="col" class="num">gross</th><th scope="col" class="num">card fee</th><th scope="col" class="num">refunded before</th><th scope="col" class="num">refunded after</th><th scope="col" class="num">returned</th><th scope="col" class="num">net</th></tr></thead>
<tbody>${joinHtml(
    r.payments,
    (
      p,
    ) => html`<tr><td><code>${p.paymentId}</code></td><td><code>${p.paymentLinkId ?? ''}</code></td><td>${p.method ?? ''}</td><td>${p.status}</td>
<td class="num">${formatUsd(p.grossCents)}</td><td class="num">${formatUsd(p.absorbedFeeCents)}</td><td class="num">${formatUsd(p.refundedBeforeBatchCents)}</td>
<td class="num">${formatUsd(p.refundedAfterBatchCents)}</td><td class="num">${formatUsd(p.returnedCents)}</td><td class="num">${formatUsd(p.netCents)}</td></tr>`,
  )}</tbody>
<tfoot><tr><th scope="row" colspan="4">${r.totals.payments} payments</th><td class="num">${formatUsd(r.totals.grossCents)}</td><td class="num">${formatUsd(
    r.totals.absorbedFeeCents,
  )}</td><td class="num">${formatUsd(r.totals.refundedBeforeBatchCents)}</td><td class="num">${formatUsd(r.totals.refundedAfterBatchCents)}</td><td class="num">${formatUsd(
    r.totals.returnedCents,
  )}</td><td class="num">${formatUsd(r.totals.netCents)}</td></tr></tfoot></table>
${
  r.mismatches.length === 0
    ? html`<p>No mismatch.</p>`
    : html`<ul id="payout-mismatches">${joinHtml(
        r.mismatches,
        (m) => html`<li><strong>${m.reason}</strong> ${formatUsd(m.amountCents)}: ${m.detail}</li>`,
      )}</ul>`
}
<p class="muted">Books: ${formatUsd(r.books.inTransitCents)} in transit, ${formatUsd(r.books.bankCents)} at the bank. Computed ${r.computedAt}.</p>
</section>`;
}

function periodHtml(p: PayoutPeriodReport) {
  return html`<section aria-labelledby="period-h"><h2 id="period-h">Payouts batched ${p.from} to ${p.to}: ${p.totals.payouts}, ${p.totals.mismatched} not reconciling</h2>
<table id="payout-period"><thead><tr><th scope="col">payout</th><th scope="col">status</th><th scope="col" class="num">sent</th><th scope="col" class="num">reached the bank</th><th scope="col" class="num">payments' net</th><th scope="col">reconciles</th></tr></thead>
<tbody>${joinHtml(
    p.payouts,
    (
      r,
    ) => html`<tr><td><a href="${reportHref(r.disbursementId)}">${r.disbursementId}</a></td><td>${r.status}</td>
<td class="num">${formatUsd(r.amountCents)}</td><td class="num">${usd(r.reachedBankCents)}</td><td class="num">${formatUsd(r.totals.netCents)}</td>
<td class="${r.reconciles ? 'ok' : 'bad'}">${r.reconciles ? 'yes' : r.mismatches.map((m) => m.reason).join(', ')}</td></tr>`,
  )}</tbody></table></section>`;
}

const reportHref = (disbursementId: string) =>
  `/console/payouts?disbursement=${encodeURIComponent(disbursementId)}`;

function recentHtml(r: RecentPayoutsPage) {
  const newer = Math.max(0, r.offset - r.limit);
  return html`<section aria-labelledby="recent-h"><h2 id="recent-h">Recent payouts</h2>
${
  r.total === 0
    ? html`<p id="no-payouts">The books hold no payout yet.</p>`
    : html`<table id="recent-payouts"><caption class="muted">Newest first, as the books hold them (${r.offset + 1} to ${
        r.offset + r.payouts.length
      } of ${r.total})</caption>
<thead><tr><th scope="col">payout</th><th scope="col">date</th><th scope="col" class="num">amount</th><th scope="col">status</th></tr></thead>
<tbody>${joinHtml(
        r.payouts,
        (
          p,
        ) => html`<tr data-disbursement="${p.disbursementId}"><td><a href="${reportHref(p.disbursementId)}">${p.disbursementId}</a></td>
<td>${p.date}</td><td class="num">${formatUsd(p.amountCents)}</td><td class="${p.status === 'failed' ? 'bad' : p.status === 'paid' ? 'ok' : ''}">${p.status}${
          p.paidOn ? html` <span class="muted">(reached the bank ${p.paidOn})</span>` : ''
        }</td></tr>`,
      )}</tbody></table>
<p>${r.offset > 0 ? html`<a href="/console/payouts?older=${newer}" id="newer-payouts">Newer payouts</a> ` : ''}${
        r.more
          ? html`<a href="/console/payouts?older=${r.offset + r.payouts.length}" id="older-payouts">Older payouts</a>`
          : ''
      }</p>`
}</section>`;
}

export function payoutsPage(session: ConsoleSession, data: PayoutsData): string {
  return page({
    title: 'Payouts',
    current: '/console/payouts',
    session,
    body: html`<p>What a payout held (its payments, card fees, refunds and returns) and whether it reached the bank in
full, as <code>booksync payout show</code> and <code>payout list</code> report it.</p>
<form method="get" action="/console/payouts">
<label for="disbursement">Payout (disbursement id)</label>
<input type="text" id="disbursement" name="disbursement" value="${data.disbursementId}"> <button type="submit">Show</button>
</form>
<form method="get" action="/console/payouts">
<label for="from">Payouts batched from</label><input type="date" id="from" name="from" value="${data.from}">
<label for="to">to</label><input type="date" id="to" name="to" value="${data.to}"> <button type="submit">List</button>
</form>
${data.error ? html`<p class="error" role="alert">${data.error}</p>` : ''}
${data.report ? payoutReportHtml(data.report) : ''}
${data.period ? periodHtml(data.period) : ''}
${data.recent ? recentHtml(data.recent) : ''}`,
  });
}
