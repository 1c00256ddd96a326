import {
  CompanyTokenStore,
  type OAuthClientOptions,
  ReconnectRequired,
  reconnectCommand,
  type SealedTokenStorage,
} from '../oauth/token-store.js';

// OAuth 2.0 for one QBO company: the shared token store (../oauth/token-store.ts) under QuickBooks' name.

export type { OAuthClientOptions, SealedTokenStorage };

const quickbooks = { target: 'quickbooks', label: 'QuickBooks' };

export const RECONNECT = reconnectCommand('quickbooks');

/** QBO said the refresh token is no good: only a new consent (reconnect) helps. */
export class QuickBooksReconnectRequired extends ReconnectRequired {
  constructor(reason: string) {
    super(quickbooks, reason);
  }
}

export class OAuthTokenStore extends CompanyTokenStore {
  constructor(options: OAuthClientOptions) {
    super(quickbooks, options);
  }
}
