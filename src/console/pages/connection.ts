import { hasConflicts, mappingValue, type RoleStep, toCreate } from '../../targets/setup/plan.js';
import { html, joinHtml, type SafeHtml } from '../html.js';
import { csrfField, page } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

// Each configured target's setup plan, the same `booksync targets setup <target>` prints: for every account
// role the account matched, the account to create or the conflict in the way, with why. The bookkeeper may
// apply it (create the missing accounts, write TARGET_ACCOUNTS), as `--apply` does; a reader sees the plan.

/** What the page knows of one target's setup. */
export type TargetSetupView =
  | { target: string; kind: 'none' }
  | { target: string; kind: 'unreadable'; label: string; error: string }
  | {
      target: string;
      kind: 'plan';
      label: string;
      company: string;
      accounts: number;
      steps: RoleStep[];
      file: string;
      saved: string | undefined;
    };

export interface ConnectionPageData {
  targets: TargetSetupView[];
  /** What applying a target's plan did, line by line. */
  outcome: { target: string; ok: boolean; lines: string[] } | null;
}

const stepRow = (step: RoleStep): SafeHtml => {
  if (step.kind === 'matched')
    return html`<tr data-role="${step.role}" data-step="matched"><th scope="row">${step.role}</th><td class="ok">matched</td>
<td>${step.account.name} (<code>${step.account.code}</code>), ${step.account.type}</td><td>${step.why}</td></tr>`;
  if (step.kind === 'create')
    return html`<tr data-role="${step.role}" data-step="create"><th scope="row">${step.role}</th><td>to create</td>
<td>${step.name}, ${step.type}</td><td class="muted">no account of the company fits</td></tr>`;
  return html`<tr data-role="${step.role}" data-step="conflict"><th scope="row">${step.role}</th><td class="bad">conflict</td>
<td>${step.account.name} (<code>${step.account.code}</code>), ${step.account.type}</td><td>${step.why}; ${step.role} requires ${step.required}</td></tr>`;
};

function targetSection(session: ConsoleSession, view: TargetSetupView): SafeHtml {
  const heading = html`<h2 id="setup-${view.target}-h">${view.target}</h2>`;
  if (view.kind === 'none')
    return html`<section aria-labelledby="setup-${view.target}-h" data-setup="${view.target}">${heading}
<p>No setup plan for ${view.target}: map its account roles with <code>TARGET_ACCOUNTS</code>.</p></section>`;
  if (view.kind === 'unreadable')
    return html`<section aria-labelledby="setup-${view.target}-h" data-setup="${view.target}">${heading}
<p class="error">Could not read the ${view.label} chart of accounts: ${view.error}</p></section>`;

  const plan = { target: view.target, steps: view.steps };
  const missing = toCreate(plan).length;
  const value = mappingValue(plan);
  const conflicts = hasConflicts(plan);
  const verdict = conflicts
    ? html`<p class="error" id="setup-${view.target}-verdict">Conflicts: rename those accounts in ${view.label} or map the roles with <code>TARGET_ACCOUNTS</code>, then reload this page. Nothing is created while a role conflicts.</p>`
    : missing > 0
      ? html`<p id="setup-${view.target}-verdict">${missing} ${missing === 1 ? 'account' : 'accounts'} to create.</p>`
      : value !== view.saved
        ? html`<p id="setup-${view.target}-verdict">Every role is matched; <code>${view.file}</code> does not map them yet.</p>`
        : html`<p id="setup-${view.target}-verdict" class="ok">Every role is matched and <code>${view.file}</code> maps them.</p>`;
  const pending = !conflicts && (missing > 0 || value !== view.saved);
  const action = !pending
    ? ''
    : session.role === 'bookkeeper'
      ? html`<form method="post" action="/console/connection/apply">${csrfField(session)}
<input type="hidden" name="target" value="${view.target}">
<p>Creates the accounts to create in ${view.label} and writes <code>TARGET_ACCOUNTS</code> to <code>${view.file}</code>, then checks the mapping as start-up does (as <code>booksync targets setup ${view.target} --apply</code>). booksync's processes read the mapping when they start.</p>
<p><button type="submit">${missing > 0 ? 'Create the missing accounts' : 'Write the mapping'}</button></p></form>`
      : html`<p class="muted">Signed in read-only: creating the accounts needs the console password.</p>`;
  return html`<section aria-labelledby="setup-${view.target}-h" data-setup="${view.target}">${heading}
<p>${view.company}: ${view.accounts} accounts.</p>
<table id="setup-${view.target}"><caption class="muted">booksync's account roles (as <code>booksync targets setup ${view.target}</code>)</caption>
<thead><tr><th scope="col">role</th><th scope="col">plan</th><th scope="col">account</th><th scope="col">why</th></tr></thead>
<tbody>${joinHtml(view.steps, stepRow)}</tbody></table>
${verdict}${action}</section>`;
}

export function connectionPage(session: ConsoleSession, data: ConnectionPageData): string {
  const { outcome } = data;
  return page({
    title: 'Connection',
    current: '/console/connection',
    session,
    body: html`${
      outcome
        ? html`<div id="outcome" role="status" class="${outcome.ok ? 'notice' : 'error'}"><p>${outcome.target}:</p>${joinHtml(
            outcome.lines,
            (line) => html`<p>${line}</p>`,
          )}</div>`
        : ''
    }
${
  data.targets.length === 0
    ? html`<p>No accounting target is set (ACCOUNTING_TARGET).</p>`
    : joinHtml(data.targets, (view) => targetSection(session, view))
}`,
  });
}
