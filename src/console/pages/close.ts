import type { BooksClosing } from '../../ledger/ledger-port.js';
import { html, joinHtml } from '../html.js';
import { csrfField, page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';
import type { CertificateRun } from '../temporal-reads.js';

export interface ClosePageData {
  runs: CertificateRun[] | { error: string };
  closings: BooksClosing[];
  closedThrough: string | null;
  /** The outcome of the last action on this page (closing the books, making a certificate). */
  outcome: { ok: boolean; lines: string[] } | null;
}

/** A certificate's page: one run of a period-close workflow, or without runId its newest run. */
export const certificateHref = (run: { workflowId: string; runId?: string }) =>
  `/console/close/certificate?workflowId=${encodeURIComponent(run.workflowId)}${
    run.runId ? `&runId=${encodeURIComponent(run.runId)}` : ''
  }`;

export function closePage(session: ConsoleSession, data: ClosePageData): string {
  const canAct = session.role === 'bookkeeper';
  const runs =
    'error' in data.runs
      ? html`<p class="muted">Could not list the certificates: ${data.runs.error}</p>`
      : data.runs.length === 0
        ? html`<p>No certificate yet.</p>`
        : html`<table id="certificates"><thead><tr><th scope="col">period</th><th scope="col">verdict</th><th scope="col">made</th><th scope="col">run</th></tr></thead>
<tbody>${joinHtml(
            data.runs,
            (
              r,
            ) => html`<tr><td>${r.certificate ? `${r.certificate.from} to ${r.certificate.to}` : r.workflowId}</td>
<td>${
              r.certificate
                ? html`<a href="${certificateHref(r)}" class="${r.certificate.passes ? 'ok' : 'bad'}">${r.certificate.passes ? 'PASSES' : 'FAILS'}</a>`
                : r.status
            }</td><td>${r.startTime.toISOString()}</td><td><code>${r.workflowId}</code></td></tr>`,
          )}</tbody></table>`;
  const closings =
    data.closings.length === 0
      ? html`<p>The books have never been closed.</p>`
      : html`<table id="closings"><thead><tr><th scope="col">through</th><th scope="col">closed</th><th scope="col">reason</th></tr></thead><tbody>${joinHtml(
          data.closings,
          (c) =>
            html`<tr><td>${c.through}</td><td>${c.at}${c.forced ? html` <strong class="bad">FORCED</strong>` : ''}</td><td>${c.reason}</td></tr>`,
        )}</tbody></table>`;
  const actions = canAct
    ? html`<section aria-labelledby="certify-h"><h2 id="certify-h">Make a certificate</h2>
<form method="post" action="/console/close/certify">${csrfField(session)}
<label for="from">From</label><input type="date" id="from" name="from" required>
<label for="to">To</label><input type="date" id="to" name="to" required>
<p><button type="submit">Make the certificate</button></p></form></section>
<section aria-labelledby="books-h"><h2 id="books-h">Close the books</h2>
<p>Closes the ledger through a day once the period's certificate passes (as <code>booksync books close</code>): from then on anything dated on or before it is booked on the first open day. Only forward; only a day that has ended.</p>
<form method="post" action="/console/close/books">${csrfField(session)}
<label for="through">Through (the period's last day)</label><input type="date" id="through" name="through" required>
<label for="reason">Reason (recorded; needed to force)</label><input type="text" id="reason" name="reason" maxlength="300">
<p><input type="checkbox" id="force" name="force" value="yes"> <label for="force" class="check">Close even if the certificate fails</label></p>
<p><button type="submit">Close the books</button></p></form></section>`
    : html`<p class="muted">Signed in read-only: making certificates and closing the books need the console password.</p>`;
  return page({
    title: 'Close',
    current: '/console/close',
    session,
    body: html`${
      data.outcome
        ? html`<div id="outcome" role="status" class="${data.outcome.ok ? 'notice' : 'error'}">${joinHtml(
            data.outcome.lines,
            (line) => html`<p>${line}</p>`,
          )}</div>`
        : ''
    }
<p>${data.closedThrough ? `The books are closed through ${data.closedThrough}.` : 'No period is closed yet.'}</p>
<section aria-labelledby="certs-h"><h2 id="certs-h">Certificates</h2>${runs}</section>
<section aria-labelledby="closings-h"><h2 id="closings-h">Closings</h2>${closings}</section>
${actions}`,
  });
}
