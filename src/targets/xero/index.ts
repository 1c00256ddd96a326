export { XeroClient } from './client.js';
export { XeroConnectionFile } from './connection-file.js';
export {
  BROAD_SCOPES,
  chooseXeroTenant,
  consentUrl,
  GRANULAR_SCOPES,
  ProofKey,
  parseConsentRedirect,
  type XeroConnection,
  xeroConnections,
  xeroScopes,
} from './consent.js';
export type { MatchingPolicy } from './contacts.js';
export { XERO_RECONNECT, XeroTokenStore } from './token-store.js';
export { XERO_LIMITS, XeroTarget, type XeroTargetOptions, xeroLimiter } from './xero-target.js';
