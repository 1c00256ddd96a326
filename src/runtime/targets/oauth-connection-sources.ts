import type { Settings } from '../../config/settings.js';
import { type OAuthConnectionSource, oauthConnectionStates } from '../../console/oauth-connections.js';
import { quickBooksSettings } from './quickbooks-connection.js';
import { xeroSettings } from './xero-connection.js';

// The OAuth targets' connections as the console and `booksync targets status` read them: the stores
// `targets connect` writes and the workers refresh, for the targets ACCOUNTING_TARGET names.

/**
 * The connection stores of the OAuth targets ACCOUNTING_TARGET names, the ones `targets connect` writes and
 * the workers refresh; settings too incomplete to open one are the connection's state (not connected).
 */
export function oauthConnectionSources(settings: Settings): Map<string, OAuthConnectionSource> {
  const sources = new Map<string, OAuthConnectionSource>();
  const open = (
    target: string,
    companyId: string | undefined,
    store: () => OAuthConnectionSource['store'],
  ) => {
    try {
      sources.set(target, { store: store(), companyId });
    } catch (error) {
      sources.set(target, { store: null, problem: error instanceof Error ? error.message : String(error) });
    }
  };
  for (const target of settings.ACCOUNTING_TARGET ?? []) {
    if (target === 'quickbooks')
      open(target, settings.QBO_REALM_ID, () => quickBooksSettings(settings).connection);
    else if (target === 'xero')
      open(target, settings.XERO_TENANT_ID, () => xeroSettings(settings).connection);
  }
  return sources;
}

/** A connected company whose refresh token hard-expires within the warning window (hard-expiry.ts). */
export interface HardExpiryWarning {
  target: string;
  companyId: string;
  hardExpiresAt: string;
  warning: string;
}

/**
 * The hard-expiry warnings of the OAuth targets' connections: connected ones only (a refused or missing
 * connection is reconnected anyway), in ACCOUNTING_TARGET's order. The stores are closed after reading.
 */
export async function hardExpiryWarnings(
  settings: Settings,
  now: number = Date.now(),
): Promise<HardExpiryWarning[]> {
  const sources = oauthConnectionSources(settings);
  try {
    const states = await oauthConnectionStates(sources, now);
    return [...sources.keys()].flatMap((target) => {
      const state = states.get(target);
      if (state?.state !== 'connected' || !state.hardExpiry) return [];
      return [
        {
          target,
          companyId: state.companyId,
          hardExpiresAt: state.hardExpiry.at,
          warning: state.hardExpiry.warning,
        },
      ];
    });
  } finally {
    for (const source of sources.values()) await source.store?.close?.();
  }
}
