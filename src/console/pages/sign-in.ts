import type { ConsoleAccount } from '../credentials.js';
import { html, joinHtml } from '../html.js';
import { barePage } from '../layout.js';

export function signInPage(options: {
  csrf: string;
  next: string;
  error: string | null;
  accounts: readonly ConsoleAccount[];
  account?: string | undefined;
}): string {
  const chosen = options.account ?? options.accounts[0]?.name;
  return barePage(
    'Sign in',
    html`${options.error ? html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
${
  options.accounts.length > 0
    ? ''
    : html`<p class="error" role="alert">No console password is set: set CONSOLE_PASSWORD and restart booksync.</p>`
}
<form method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="next" value="${options.next}">
<label for="account">Account</label>
<select id="account" name="account">${joinHtml(
      options.accounts,
      (a) =>
        html`<option value="${a.name}"${a.name === chosen ? html` selected` : ''}>${a.name} (${a.role})</option>`,
    )}</select>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus>
<p><button type="submit">Sign in</button></p>
</form>`,
  );
}
