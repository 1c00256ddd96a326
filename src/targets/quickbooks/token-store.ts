import type { SealedTokenStorage } from '../oauth/connection-store.js';
import {
  CompanyTokenStore,
  type OAuthClientOptions,
  ReconnectRequired,
  reconnectCommand,
} from '../oauth/token-store.js';

// OAuth 2.0 for one QBO company: the shared token store (../oauth/token-store.ts) under QuickBooks' name,
// asking Intuit for the refresh token's hard expiry on every token request (the request header
// `x-include-refresh-token-hard-expires-in: true`, answered `x_refresh_token_hard_expires_in`: Intuit's
// oauth-jsclient#211 and its SDKs' "Support for new refresh token expiry field"), kept with the connection so
// people are warned before it (../oauth/hard-expiry.ts).

export type { OAuthClientOptions, SealedTokenStorage };

const quickbooks = { target: 'quickbooks', label: 'QuickBooks' };

export const RECONNECT = reconnectCommand('quickbooks');

/** QBO said the refresh token is no good: only a new consent (reconnect) helps. */
export class QuickBooksReconnectRequired extends ReconnectRequired {
  constructor(reason: string) {
    super(quickbooks, reason);
  }
}

/** The header that asks Intuit's token endpoint for `x_refresh_token_hard_expires_in`. */
export const HARD_EXPIRY_HEADER = { 'x-include-refresh-token-hard-expires-in': 'true' } as const;

export class OAuthTokenStore extends CompanyTokenStore {
  constructor(options: OAuthClientOptions) {
    super(quickbooks, {
      ...options,
      tokenRequestHeaders: { ...options.tokenRequestHeaders, ...HARD_EXPIRY_HEADER },
    });
  }
}
