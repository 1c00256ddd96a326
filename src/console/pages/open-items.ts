import { formatUsd } from '../../ledger/money.js';
import { type AgedItem, type AgingTotals, agingBuckets, type Side } from '../aging.js';
import { html, joinHtml } from '../html.js';
import { page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

export interface OpenItemsData {
  today: string;
  query: string;
  sides: { side: Side; items: AgedItem[]; totals: AgingTotals }[];
}

const words = {
  receivable: { title: 'Receivables', document: 'invoice', party: 'customer' },
  payable: { title: 'Payables', document: 'bill', party: 'vendor' },
} as const;

const amountCells = (item: AgedItem) =>
  agingBuckets.map((b) => html`<td class="num">${item.bucket === b ? formatUsd(item.openCents) : ''}</td>`);

function sideTable({ side, items, totals }: OpenItemsData['sides'][number]) {
  const w = words[side];
  return html`<section aria-labelledby="${side}-h">
<h2 id="${side}-h">${w.title}: ${formatUsd(totals.total)} open</h2>
${
  items.length === 0
    ? html`<p>No open ${w.document}.</p>`
    : html`<table id="${side}s"><thead><tr><th scope="col">${w.document}</th><th scope="col">${w.party}</th><th scope="col">dated</th><th scope="col" class="num">days</th>${agingBuckets.map(
        (b) => html`<th scope="col" class="num">${b} days</th>`,
      )}<th scope="col" class="num">open</th></tr></thead>
<tbody>${joinHtml(
        items,
        (item) => html`<tr data-document="${item.documentId ?? ''}" data-open-cents="${item.openCents}">
<td>${item.documentName ? html`${item.documentName}<br>` : ''}<code>${item.documentId ?? `(no ${w.document})`}</code></td>
<td>${item.counterpartyName ? html`${item.counterpartyName}<br>` : ''}<code>${item.counterpartyId ?? '-'}</code></td>
<td>${item.documentDate ?? ''}</td><td class="num">${item.ageDays ?? ''}</td>${amountCells(item)}
<td class="num">${formatUsd(item.openCents)}</td></tr>`,
      )}</tbody>
<tfoot><tr><th scope="row" colspan="4">total</th>${agingBuckets.map(
        (b) => html`<td class="num">${formatUsd(totals[b])}</td>`,
      )}<td class="num" data-total-cents="${totals.total}">${formatUsd(totals.total)}</td></tr></tfoot></table>`
}
</section>`;
}

export function openItemsPage(session: ConsoleSession, data: OpenItemsData): string {
  return page({
    title: 'Receivables and payables',
    current: '/console/receivables',
    session,
    body: html`<form method="get" action="/console/receivables" role="search">
<label for="q">Search by invoice or bill (id or number), customer or vendor (id or name)</label>
<input type="search" id="q" name="q" value="${data.query}"> <button type="submit">Search</button>
${data.query ? html` <a href="/console/receivables">Show all</a>` : ''}
</form>
<p class="muted">What each invoice and bill still owes in the books, aged by its entry date, as of ${data.today} (BOOKS_TIME_ZONE).</p>
${joinHtml(data.sides, sideTable)}`,
  });
}
