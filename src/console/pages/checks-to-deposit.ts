import type { HeldPayment } from '../../ledger/mapping/deposit-slip.js';
import { formatUsd } from '../../ledger/money.js';
import { html, joinHtml } from '../html.js';
import { csrfField, page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

export interface WaitingCheck extends HeldPayment {
  /** Days from the day it was paid to today. */
  ageDays: number;
}

export interface ChecksToDepositData {
  today: string;
  checks: WaitingCheck[];
  /** The outcome of the last deposit slip made on this page. */
  outcome: { ok: boolean; lines: string[] } | null;
}

/** The form field of one check: its link and external payment ids (ids carry no ':'). */
export const checkField = (check: Pick<HeldPayment, 'paymentLinkId' | 'externalPaymentId'>) =>
  `pay:${check.paymentLinkId}:${check.externalPaymentId}`;

export function checksToDepositPage(session: ConsoleSession, data: ChecksToDepositData): string {
  const canAct = session.role === 'bookkeeper';
  const total = data.checks.reduce((sum, c) => sum + c.amountCents, 0);
  const table =
    data.checks.length === 0
      ? html`<p>No check waits to be deposited: Checks To Deposit holds no external payment.</p>`
      : html`<table id="checks"><thead><tr>${canAct ? html`<th scope="col">deposit</th>` : ''}<th scope="col">paid</th><th scope="col" class="num">days</th><th scope="col">payment link</th><th scope="col">external payment</th><th scope="col" class="num">amount</th></tr></thead>
<tbody>${joinHtml(data.checks, (c, i) => {
          const id = `check-${i}`;
          return html`<tr data-external-payment="${c.externalPaymentId}" data-cents="${c.amountCents}">${
            canAct
              ? html`<td><input type="checkbox" id="${id}" name="${checkField(c)}" value="yes" aria-label="deposit ${c.externalPaymentId}"></td>`
              : ''
          }<td>${c.paidOn}</td><td class="num">${c.ageDays}</td><td><code>${c.paymentLinkId}</code></td><td><code>${c.externalPaymentId}</code></td><td class="num">${formatUsd(c.amountCents)}</td></tr>`;
        })}</tbody>
<tfoot><tr><th scope="row" colspan="${canAct ? 5 : 4}">in Checks To Deposit</th><td class="num" data-total-cents="${total}">${formatUsd(total)}</td></tr></tfoot></table>`;
  const body = canAct
    ? html`<form method="post" action="/console/checks-to-deposit">${csrfField(session)}
${table}
${
  data.checks.length === 0
    ? ''
    : html`<section aria-labelledby="slip-h"><h2 id="slip-h">Record a deposit slip</h2>
<p>Tick the checks one deposit slip took to the bank, then give the day the bank took it and the slip's number. Booked as one entry, Dr Operating Bank / Cr Checks To Deposit, dated that day (as <code>booksync link deposit</code>).</p>
<label for="date">Bank date</label><input type="date" id="date" name="date" required>
<label for="reference">Slip number</label><input type="text" id="reference" name="reference" required maxlength="100" pattern="[^\\s,;#]+">
<p><button type="submit">Book the deposit slip</button></p></section>`
}
</form>`
    : html`${table}<p class="muted">Signed in read-only: recording a deposit slip needs the console password.</p>`;
  return page({
    title: 'Checks to deposit',
    current: '/console/checks-to-deposit',
    session,
    body: html`${
      data.outcome
        ? html`<div id="outcome" role="status" class="${data.outcome.ok ? 'notice' : 'error'}">${joinHtml(
            data.outcome.lines,
            (line) => html`<p>${line}</p>`,
          )}</div>`
        : ''
    }
<p class="muted">Money customers paid outside the service (external payments), booked to Checks To Deposit and on no deposit slip yet, oldest first, as of ${data.today} (BOOKS_TIME_ZONE).</p>
${body}`,
  });
}
