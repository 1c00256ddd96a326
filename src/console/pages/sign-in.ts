import { html } from '../html.js';
import { barePage } from '../layout.js';

export function signInPage(options: {
  csrf: string;
  next: string;
  error: string | null;
  configured: boolean;
}): string {
  return barePage(
    'Sign in',
    html`${options.error ? html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
${
  options.configured
    ? ''
    : html`<p class="error" role="alert">No console password is set: set CONSOLE_PASSWORD (or COMMAND_API_KEY) and restart booksync.</p>`
}
<form method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="next" value="${options.next}">
<label for="password">Console password (or the command API key)</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus>
<label for="name">Your name, for the audit log (optional)</label>
<input type="text" id="name" name="name" autocomplete="name" maxlength="80">
<p><button type="submit">Sign in</button></p>
</form>`,
  );
}
