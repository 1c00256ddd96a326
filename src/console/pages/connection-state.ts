import { html, type SafeHtml } from '../html.js';
import { type OAuthConnectionState, reconnectCommandLine } from '../oauth-connections.js';

// A target's connection as the Overview and Sync errors pages show it: an OAuth target's state from its token
// store (connected to which company, not connected, refused), and the command that reconnects it whenever the
// connection is not usable, whether or not a push has failed yet; a push's own last error naming a refused
// connection says the same; and, while connected, the refresh token's hard expiry when it is near. Other
// targets (Tryton) show the push workflow's state only.

/** A push's error (the flow's last error, a failed entry's reason) that says the connection was refused. */
const refusedByPush = (errors: readonly (string | null | undefined)[]) =>
  errors.some((e) => !!e && /disconnect|revoked|reconnect|invalid_grant|consent/i.test(e));

/** Whether the target needs a new consent: its store says so, or a push was refused for it. */
export function needsReconnect(
  oauth: OAuthConnectionState | undefined,
  pushErrors: readonly (string | null | undefined)[] = [],
): boolean {
  return oauth?.state === 'not connected' || oauth?.state === 'refused' || refusedByPush(pushErrors);
}

/** The OAuth state in a few words (a table cell). */
export function oauthStateHtml(target: string, oauth: OAuthConnectionState | undefined): SafeHtml {
  if (!oauth) return html``;
  switch (oauth.state) {
    case 'connected':
      return html`<span class="ok" data-oauth="${target}" data-state="connected">connected</span> to <code>${oauth.companyId}</code> since ${oauth.connectedAt}`;
    case 'not connected':
      return html`<span class="bad" data-oauth="${target}" data-state="not-connected">not connected</span> <span class="muted">(${oauth.detail})</span>`;
    case 'refused':
      return html`<span class="bad" data-oauth="${target}" data-state="refused">refused (revoked or expired)</span>: <code>${oauth.companyId}</code>, ${oauth.reason} at ${oauth.refusedAt}`;
    case 'unreadable':
      return html`<span class="bad" data-oauth="${target}" data-state="unreadable">connection not readable</span> <span class="muted">(${oauth.detail})</span>`;
  }
}

/** The reconnect help, when the connection is not usable. */
export function reconnectHelpHtml(
  target: string,
  oauth: OAuthConnectionState | undefined,
  pushErrors: readonly (string | null | undefined)[] = [],
): SafeHtml {
  if (!needsReconnect(oauth, pushErrors)) return html``;
  const why =
    oauth?.state === 'refused'
      ? `${target} refused the connection (${oauth.reason})`
      : oauth?.state === 'not connected'
        ? `booksync is not connected to ${target}`
        : `the connection to ${target} is no longer accepted`;
  return html`<p class="error" id="reconnect-${target}">${why}: run <code>${reconnectCommandLine(
    target,
  )}</code> on the server to connect it again.</p>`;
}

/** The warning that a connected target's refresh token hard-expires soon (or has), with the command. */
export function hardExpiryHtml(target: string, oauth: OAuthConnectionState | undefined): SafeHtml {
  if (oauth?.state !== 'connected' || !oauth.hardExpiry) return html``;
  return html`<p class="error" id="hard-expiry-${target}" data-hard-expires-at="${oauth.hardExpiry.at}">${oauth.hardExpiry.warning}</p>`;
}
