import type { AuditRecord } from '../audit-log.js';
import { html, joinHtml } from '../html.js';
import { page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

export function auditPage(session: ConsoleSession, records: readonly AuditRecord[]): string {
  return page({
    title: 'Audit log',
    current: '/console/audit',
    session,
    body: html`<p>Every action taken in the console, newest first: who (the name given at sign-in and the credential
used), when, what, and how it ended. Kept in <code>console.db</code> in the data folder.</p>
${
  records.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<table id="audit"><thead><tr><th scope="col">when</th><th scope="col">who</th><th scope="col">role</th><th scope="col">action</th><th scope="col">what</th><th scope="col">outcome</th><th scope="col">from</th></tr></thead>
<tbody>${joinHtml(
        records,
        (r) =>
          html`<tr data-action="${r.action}"><td>${r.at}</td><td>${r.who}</td><td>${r.role ?? ''}</td><td>${r.action}</td><td>${r.detail}</td><td>${r.outcome}</td><td>${r.ip ?? ''}</td></tr>`,
      )}</tbody></table>`
}`,
  });
}
