import { CompanyTokenStore, type OAuthClientOptions, reconnectCommand } from '../oauth/token-store.js';

// OAuth 2.0 for one Xero organisation: the shared token store (../oauth/token-store.ts) against Xero's token
// endpoint (XERO_TOKEN_URL, https://identity.xero.com/connect/token). Xero's access tokens live 30 minutes
// and every refresh rotates the refresh token; one refresher at a time, each new token sealed and saved
// before use. xero-node's own XeroClient cannot be pointed at another token URL, so booksync refreshes itself
// and hands only the access token to the SDK.

export const XERO_RECONNECT = reconnectCommand('xero');

export class XeroTokenStore extends CompanyTokenStore {
  constructor(options: OAuthClientOptions) {
    super({ target: 'xero', label: 'Xero' }, options);
  }
}
