import type { IndexedEntry } from '../../flows/push/target-index.js';
import type { BookedEntry } from '../../ledger/ledger-port.js';
import { html, joinHtml } from '../html.js';
import { csrfField, page } from '../layout.js';
import type { OAuthConnectionState } from '../oauth-connections.js';
import type { ConsoleSession } from '../sessions.js';
import { oauthStateHtml, reconnectHelpHtml } from './connection-state.js';

export interface TargetFailures {
  target: string;
  /** An OAuth target's connection, from its token store: its reconnect help shows before any push fails. */
  oauth?: OAuthConnectionState | undefined;
  failures: { failure: IndexedEntry; entry: BookedEntry | null }[];
}

const links = (entry: BookedEntry | null) =>
  entry
    ? Object.entries(entry.links)
        .map(([field, id]) => `${field} ${id}`)
        .join(', ')
    : '';

export function syncErrorsPage(
  session: ConsoleSession,
  data: { targets: TargetFailures[]; notice: string | null },
): string {
  const canAct = session.role === 'bookkeeper';
  const sections = joinHtml(
    data.targets,
    ({ target, failures, oauth }) => html`<section aria-labelledby="t-${target}" data-target="${target}">
<h2 id="t-${target}">${target}: ${failures.length} failed</h2>
${oauth ? html`<p>Connection: ${oauthStateHtml(target, oauth)}</p>` : ''}
${reconnectHelpHtml(
  target,
  oauth,
  failures.map(({ failure }) => failure.reason),
)}
${
  failures.length === 0
    ? html`<p>Nothing failed at ${target}.</p>`
    : html`${
        canAct
          ? html`<form method="post" action="/console/sync-errors/retry">${csrfField(session)}
<input type="hidden" name="target" value="${target}">
<button type="submit" id="retry-all-${target}">Retry all ${failures.length} at ${target}</button></form>`
          : ''
      }
<table class="failures"><thead><tr><th scope="col">entry</th><th scope="col">document</th><th scope="col">the target's message</th><th scope="col" class="num">attempts</th><th scope="col">last attempt</th>${
        canAct ? html`<th scope="col">action</th>` : ''
      }</tr></thead>
<tbody>${joinHtml(
        failures,
        ({ failure, entry }) => html`<tr data-key="${failure.key}">
<td><code>${failure.key}</code></td>
<td>${entry ? html`${entry.date} ${entry.description}<br><span class="muted">${links(entry)}</span>` : html`<span class="muted">not in the ledger</span>`}</td>
<td class="reason">${failure.reason ?? ''}</td>
<td class="num">${failure.attempts}</td>
<td>${failure.updatedAt}</td>
${
  canAct
    ? html`<td><form method="post" action="/console/sync-errors/retry">${csrfField(session)}
<input type="hidden" name="target" value="${target}"><input type="hidden" name="key" value="${failure.key}">
<button type="submit" class="secondary" aria-label="Retry ${failure.key}">Retry</button></form></td>`
    : ''
}</tr>`,
      )}</tbody></table>`
}
</section>`,
  );
  return page({
    title: 'Sync errors',
    current: '/console/sync-errors',
    session,
    body: html`${data.notice ? html`<p class="notice" role="status" id="notice">${data.notice}</p>` : ''}
<p>Each entry an accounting target refused, with the target's own message. Fix the cause at the target (a
missing account, a closed period), then Retry: the entry is queued again for the target's push, as
<code>booksync targets retry</code> does.</p>
${data.targets.length === 0 ? html`<p>No accounting target is set (ACCOUNTING_TARGET).</p>` : sections}`,
  });
}
