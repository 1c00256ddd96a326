import type { TargetSummary } from '../../flows/push/target-index.js';
import type { TrialBalance } from '../../ledger/ledger-port.js';
import { formatUsd } from '../../ledger/money.js';
import { html, joinHtml } from '../html.js';
import { page } from '../layout.js';
import type { OAuthConnectionState } from '../oauth-connections.js';
import type { ConsoleSession } from '../sessions.js';
import type {
  CertificateRun,
  FlowNeedingAttention,
  ReconciliationRun,
  TargetConnection,
} from '../temporal-reads.js';
import { certificateHref } from './close.js';
import { hardExpiryHtml, oauthStateHtml, reconnectHelpHtml } from './connection-state.js';

export interface OverviewData {
  trial: TrialBalance;
  closedThrough: string | null;
  /** `oauth`: an OAuth target's connection as its token store keeps it (absent for Tryton, the mirror). */
  targets: {
    summary: TargetSummary;
    connection: TargetConnection;
    oauth?: OAuthConnectionState | undefined;
  }[];
  attention: FlowNeedingAttention[] | { error: string };
  lastCertificate: CertificateRun | null | { error: string };
  reconciliation: ReconciliationRun | null | { error: string };
  /** Link into the Temporal Web UI for a workflow id; null without a UI. */
  workflowLink: ((workflowId: string) => string) | null;
}

export function overviewPage(session: ConsoleSession, data: OverviewData): string {
  const { trial } = data;
  const books = html`<section aria-labelledby="books">
<h2 id="books">Books</h2>
<p id="books-balanced" class="${trial.balanced ? 'ok' : 'bad'}">${
    trial.balanced ? 'The books balance' : 'The books do not balance'
  }: debits ${formatUsd(trial.totalDebitCents)}, credits ${formatUsd(trial.totalCreditCents)}.</p>
<p>${data.closedThrough ? `Closed through ${data.closedThrough}.` : 'No period is closed yet.'}</p>
</section>`;

  const targets =
    data.targets.length === 0
      ? html`<p>No accounting target is set (ACCOUNTING_TARGET): the books stay in booksync's ledger.</p>`
      : html`<table id="targets"><caption class="muted">What each target holds, from the target index (as <code>booksync targets status</code>)</caption>
<thead><tr><th scope="col">target</th><th scope="col" class="num">pushed</th><th scope="col" class="num">pending</th><th scope="col" class="num">failed</th><th scope="col" class="num">skipped</th><th scope="col">connection</th></tr></thead>
<tbody>${joinHtml(
          data.targets,
          ({ summary: s, connection: c, oauth }) => html`<tr data-target="${s.target}">
<th scope="row">${s.target}</th><td class="num">${s.pushed}</td><td class="num">${s.pending}</td>
<td class="num${s.failed > 0 ? ' bad' : ''}">${s.failed > 0 ? html`<a href="/console/sync-errors">${s.failed}</a>` : '0'}</td>
<td class="num">${s.skipped}</td>
<td>${oauth ? html`${oauthStateHtml(s.target, oauth)}<br>push: ` : ''}${c.state}${c.lastError ? html`<br><span class="muted">${c.lastError}</span>` : ''}${
            c.warning ? html`<br><span class="bad">${c.warning}</span>` : ''
          }</td></tr>`,
        )}</tbody></table>
${joinHtml(
  data.targets,
  ({ summary, connection, oauth }) =>
    html`${reconnectHelpHtml(summary.target, oauth, [connection.lastError])}${hardExpiryHtml(summary.target, oauth)}`,
)}`;

  const attention =
    'error' in data.attention
      ? html`<p class="muted">Could not list the flows: ${data.attention.error}</p>`
      : data.attention.length === 0
        ? html`<p id="no-attention">No flow needs attention.</p>`
        : html`<ul id="attention">${joinHtml(
            data.attention,
            (f) =>
              html`<li>${data.workflowLink ? html`<a href="${data.workflowLink(f.workflowId)}">${f.workflowId}</a>` : f.workflowId} (${f.type})${
                f.lastError ? html`: <span class="muted">${f.lastError}</span>` : ''
              }</li>`,
          )}</ul>`;

  const last = data.lastCertificate;
  const certificate =
    last === null
      ? html`<p>No certificate yet: make one on the <a href="/console/close">Close</a> page.</p>`
      : 'error' in last
        ? html`<p class="muted">Could not read the certificates: ${last.error}</p>`
        : last.certificate
          ? html`<p id="last-certificate">${last.certificate.from} to ${last.certificate.to}: <span class="${
              last.certificate.passes ? 'ok' : 'bad'
            }">${last.certificate.passes ? 'PASSES' : 'FAILS'}</span> (as of ${last.certificate.asOf}). <a href="${certificateHref(last)}">Open the certificate</a></p>`
          : html`<p>${last.workflowId}: ${last.status}</p>`;

  const run = data.reconciliation;
  const reconciliation =
    run === null
      ? html`<p>No reconciliation has run yet.</p>`
      : 'error' in run
        ? html`<p class="muted">Could not read the reconciliations: ${run.error}</p>`
        : html`<p id="last-reconciliation">${
            data.workflowLink
              ? html`<a href="${data.workflowLink(run.workflowId)}">${run.workflowId}</a>`
              : run.workflowId
          }: <span class="${run.status === 'FAILED' || run.status === 'TIMED_OUT' ? 'bad' : ''}">${run.status}</span>, started ${run.startTime.toISOString()}${
            run.closeTime ? `, ended ${run.closeTime.toISOString()}` : ''
          }.</p>`;

  return page({
    title: 'Overview',
    current: '/console',
    session,
    body: html`${books}
<section aria-labelledby="targets-h"><h2 id="targets-h">Accounting targets</h2>${targets}</section>
<section aria-labelledby="attention-h"><h2 id="attention-h">Flows needing attention</h2>${attention}</section>
<section aria-labelledby="reconciliation-h"><h2 id="reconciliation-h">Last reconciliation</h2>${reconciliation}</section>
<section aria-labelledby="certificate-h"><h2 id="certificate-h">Last certificate</h2>${certificate}</section>`,
  });
}
