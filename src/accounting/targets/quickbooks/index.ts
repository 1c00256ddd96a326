export { TokenCipher } from '../oauth/token-cipher.js';
export { type QuickBooksConnection, QuickBooksConnectionFile } from './connection-file.js';
export { ConsentError, consentUrl, newConsentState, parseConsentRedirect } from './consent.js';
export { MINOR_VERSION } from './http-client.js';
export { QuickBooksLimiter, quickBooksBudget, RealmLimiter, realmLimiter } from './limiter.js';
export type { MatchingPolicy } from './parties.js';
export { QuickBooksTarget, type QuickBooksTargetOptions } from './quickbooks-target.js';
export {
  OAuthTokenStore,
  QuickBooksReconnectRequired,
  RECONNECT,
  type SealedTokenStorage,
} from './token-store.js';
