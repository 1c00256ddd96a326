export { TokenCipher } from '../oauth/token-cipher.js';
export { type QuickBooksConnection, QuickBooksConnectionFile } from './connection-file.js';
export { ConsentError, consentUrl, newConsentState, parseConsentRedirect } from './consent.js';
export { MINOR_VERSION } from './http-client.js';
export { QuickBooksLimiter, quickBooksBudget, RealmLimiter, realmLimiter } from './limiter.js';
export type { MatchingPolicy } from './parties.js';
export { QuickBooksTarget } from './quickbooks-target.js';
export type { QuickBooksTargetOptions } from './session.js';
export {
  OAuthTokenStore,
  QuickBooksReconnectRequired,
  RECONNECT,
  type SealedTokenStorage,
} from './token-store.js';
