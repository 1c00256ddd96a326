import { type HtmlValue, html, type SafeHtml } from './html.js';
import type { ConsoleSession } from './sessions.js';

// Every console page's frame: the navigation, who is signed in, the sign-out form (with its CSRF token), and
// one stylesheet (/console/console.css). No script anywhere: every action is a form, so it works without
// JavaScript and by keyboard.

export const consolePages = [
  { path: '/console', label: 'Overview' },
  { path: '/console/sync-errors', label: 'Sync errors' },
  { path: '/console/receivables', label: 'Receivables and payables' },
  { path: '/console/payouts', label: 'Payouts' },
  { path: '/console/checks-to-deposit', label: 'Checks to deposit' },
  { path: '/console/close', label: 'Close' },
  { path: '/console/connection', label: 'Connection' },
  { path: '/console/audit', label: 'Audit log' },
] as const;

export function csrfField(session: ConsoleSession): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

/** The start of every console page, up to its body: the title, the console's stylesheet. */
const documentHead = (title: string) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · booksync console</title>
<link rel="stylesheet" href="/console/console.css">
</head>`;

export function page(options: {
  title: string;
  current: string;
  session: ConsoleSession;
  body: HtmlValue;
}): string {
  const { title, current, session, body } = options;
  return html`${documentHead(title)}
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
<p class="brand">booksync console</p>
<nav aria-label="Console pages"><ul>${consolePages.map(
    (p) =>
      html`<li><a href="${p.path}"${p.path === current ? html` aria-current="page"` : ''}>${p.label}</a></li>`,
  )}</ul></nav>
<form class="signout" method="post" action="/console/sign-out">${csrfField(session)}
<span id="signed-in-as">${session.who} (${session.role})</span>
<button type="submit">Sign out</button></form>
</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.markup;
}

/** A page outside the session (sign-in). */
export function barePage(title: string, body: HtmlValue): string {
  return html`${documentHead(title)}
<body>
<main id="main" class="narrow">
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.markup;
}

export const consoleCss = `:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --accent: #0b4f9c; --bad: #a4161a; --good: #1b5e20; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 1; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; padding: 8px 24px; border-bottom: 1px solid var(--line); background: #f4f6f8; }
.brand { font-weight: 700; margin: 0; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 0; padding: 0; }
nav a { color: var(--accent); text-decoration: none; padding: 4px 2px; }
nav a[aria-current="page"] { font-weight: 700; border-bottom: 3px solid var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.signout { margin-left: auto; display: flex; gap: 8px; align-items: center; }
main { padding: 16px 24px 48px; max-width: 1200px; }
main.narrow { max-width: 420px; margin: 48px auto; }
table { border-collapse: collapse; margin: 8px 0 24px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #eef1f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: var(--good); font-weight: 700; }
.bad { color: var(--bad); font-weight: 700; }
.muted { color: var(--muted); }
.notice { border-left: 4px solid var(--accent); padding: 8px 12px; background: #eef4fb; }
.error { border-left: 4px solid var(--bad); padding: 8px 12px; background: #fbeeee; }
label { display: block; font-weight: 600; margin: 8px 0 4px; }
label.check { display: inline; font-weight: 400; }
input[type=text], input[type=password], input[type=date], input[type=search], select { font: inherit; padding: 6px 8px; border: 1px solid #767676; border-radius: 4px; min-width: 16em; }
button { font: inherit; padding: 6px 14px; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
form.inline { display: inline; }
pre { background: #f6f6f6; padding: 12px; overflow-x: auto; }
`;
