import { ConsentError, consentUrlOf, parseRedirect } from '../oauth/consent.js';

// Xero's consent for `booksync targets connect xero` (the flow is ../oauth/consent.ts). Xero's redirect
// carries only the code; the organisation is chosen on the consent page and read afterwards from the
// connections endpoint (GET <api root>/connections with the new access token).

export const AUTHORIZE_URL = 'https://login.xero.com/identity/connect/authorize';
/** offline_access for a refresh token; the accounting scopes booksync reads and writes with. */
export const XERO_SCOPES =
  'offline_access accounting.transactions accounting.contacts accounting.settings.read';

export const consentUrl = consentUrlOf({ authorizeUrl: AUTHORIZE_URL, scope: XERO_SCOPES });

export function parseConsentRedirect(redirect: string, expectedState: string): { code: string } {
  return { code: parseRedirect(redirect, expectedState, 'Xero').code };
}

export interface XeroConnection {
  tenantId: string;
  tenantType: string;
  tenantName: string | null;
}

/** The organisations the access token may reach (Xero's GET /connections). */
export async function xeroConnections(
  connectionsUrl: string,
  accessToken: string,
): Promise<XeroConnection[]> {
  const response = await fetch(connectionsUrl, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new ConsentError(`Xero's connections answered ${response.status}`);
  const rows = (await response.json()) as {
    tenantId?: string;
    tenantType?: string;
    tenantName?: string | null;
  }[];
  return rows
    .filter((r) => r.tenantId && (r.tenantType ?? 'ORGANISATION') === 'ORGANISATION')
    .map((r) => ({
      tenantId: String(r.tenantId),
      tenantType: r.tenantType ?? 'ORGANISATION',
      tenantName: r.tenantName ?? null,
    }));
}
