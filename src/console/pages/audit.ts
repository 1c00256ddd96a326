import type { AuditPage } from '../audit-log.js';
import { html, joinHtml } from '../html.js';
import { page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

export function auditPage(session: ConsoleSession, audit: AuditPage, older: boolean): string {
  const { records } = audit;
  return page({
    title: 'Audit log',
    current: '/console/audit',
    session,
    body: html`<p>Every action taken in the console, newest first: who (the account and the credential used), when,
what, and how it ended; sign-ins refused while throttled are one row with their count. Kept in <code>console.db</code>
in the data folder, append-only and hash-chained: <code>npx booksync console audit verify</code> checks it.</p>
${
  records.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<table id="audit"><thead><tr><th scope="col">#</th><th scope="col">when</th><th scope="col">who</th><th scope="col">role</th><th scope="col">action</th><th scope="col">what</th><th scope="col">outcome</th><th scope="col">from</th></tr></thead>
<tbody>${joinHtml(
        records,
        (r) =>
          html`<tr data-action="${r.action}" data-id="${r.id}"><td class="num">${r.id}</td><td>${r.at}</td><td>${r.who}</td><td>${r.role ?? ''}</td><td>${r.action}</td><td>${r.detail}</td><td>${r.outcome}</td><td>${r.ip ?? ''}</td></tr>`,
      )}</tbody></table>`
}
<p>${older ? html`<a href="/console/audit" id="newest-audit">Newest entries</a> ` : ''}${
      audit.older !== null
        ? html`<a href="/console/audit?before=${audit.older}" id="older-audit">Older entries</a>`
        : ''
    }</p>`,
  });
}
