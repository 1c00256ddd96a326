import {
  ConsentError,
  type ConsentUrlOptions,
  consentUrlOf,
  ProofKey,
  parseRedirect,
} from '../oauth/consent.js';

export { ProofKey };

// Xero's consent for `booksync targets connect xero` (the flow is ../oauth/consent.ts). Xero's redirect
// carries only the code; the organisation is chosen on the consent page and read afterwards from the
// connections endpoint (GET <api root>/connections with the new access token, which needs no scope).
//
// The scopes: an app created on or after 2 March 2026 may ask only Xero's granular scopes, a broad one fails
// the consent with invalid_scope; older apps may ask the broad ones until September 2027
// (https://developer.xero.com/faq/granular-scopes). booksync asks the granular scope of each endpoint it
// calls, `.read` where it only reads (packages/vendor-doubles/src/xero/README.md, "Scopes": the endpoint → scope table), no
// OpenID scope (it reads no identity).
//
// PKCE: Xero documents the S256 code_challenge on the authorize URL and the code_verifier on the code exchange
// (https://developer.xero.com/documentation/oauth2/pkce-flow), so every consent carries one (a ProofKey per
// connect, ../oauth/consent.ts) and its code is exchanged with the verifier; the app's secret is sent too.

export const AUTHORIZE_URL = 'https://login.xero.com/identity/connect/authorize';

/** The granular scopes booksync needs: XERO_SCOPES' default. */
export const GRANULAR_SCOPES = [
  'offline_access', // a refresh token
  'accounting.settings', // Accounts (read; created by targets setup --apply), TaxRates, Organisation (lock dates)
  'accounting.contacts', // Contacts, looked up and created
  'accounting.invoices', // Invoices, CreditNotes and their allocations
  'accounting.payments', // Payments; Overpayments refunded or allocated, their allocations removed
  'accounting.banktransactions', // BankTransactions, BankTransfers and their History & Notes
  'accounting.manualjournals', // ManualJournals
  'accounting.reports.trialbalance.read', // the close certificate's Trial Balance
  'accounting.reports.aged.read', // its aged receivables and payables by contact
].join(' ');

/** The same calls in Xero's broad scopes, for an app created before 2 March 2026 (XERO_BROAD_SCOPES). */
export const BROAD_SCOPES =
  'offline_access accounting.transactions accounting.contacts accounting.settings.read accounting.reports.read';

/**
 * The scopes booksync asks: XERO_SCOPES, else the broad ones with XERO_BROAD_SCOPES, else the granular ones;
 * offline_access always (the worker refreshes its token).
 */
export function xeroScopes(settings: {
  XERO_SCOPES?: string | undefined;
  XERO_BROAD_SCOPES: boolean;
}): string {
  const chosen = settings.XERO_SCOPES ?? (settings.XERO_BROAD_SCOPES ? BROAD_SCOPES : GRANULAR_SCOPES);
  const scopes = chosen.split(/\s+/).filter(Boolean);
  return (scopes.includes('offline_access') ? scopes : ['offline_access', ...scopes]).join(' ');
}

/** The consent URL of one connect, asking `scope` (xeroScopes), with the connect's PKCE challenge. */
export function consentUrl(options: ConsentUrlOptions & { scope: string; proofKey: ProofKey }): string {
  const { scope, ...connect } = options;
  return consentUrlOf({ authorizeUrl: AUTHORIZE_URL, scope })(connect);
}

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

/**
 * The organisation of the consent: XERO_TENANT_ID's (refused when the consent does not reach it), else the
 * only one; several and none configured is ambiguous (each could be the books), refused naming them all.
 */
export function chooseXeroTenant(
  organisations: readonly XeroConnection[],
  configured: string | undefined,
): { tenantId: string } | { refusal: string } {
  if (configured) {
    const chosen = organisations.find((o) => o.tenantId === configured);
    return chosen
      ? { tenantId: chosen.tenantId }
      : {
          refusal: `XERO_TENANT_ID is ${configured}, which this consent does not reach: allow that organisation or change XERO_TENANT_ID`,
        };
  }
  const [only, ...others] = organisations;
  if (!only) return { refusal: 'the consent reaches no Xero organisation' };
  if (others.length === 0) return { tenantId: only.tenantId };
  const listed = organisations.map((o) => `  ${o.tenantId}  ${o.tenantName ?? '(no name)'}`).join('\n');
  return {
    refusal:
      `the consent reaches ${organisations.length} Xero organisations and XERO_TENANT_ID names none: nothing saved. ` +
      `Set XERO_TENANT_ID to the tenant id of the one booksync pushes to and connect again:\n${listed}`,
  };
}
