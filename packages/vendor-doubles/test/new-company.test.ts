import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickBooksDouble } from '../src/quickbooks/double.js';
import { XeroDouble } from '../src/xero/double.js';

// The doubles as a client that is not booksync meets them over HTTP: a new company as the vendor starts one,
// OAuth 2.0 as the vendor documents it (a refresh token exchanged at the token endpoint with the app's Basic
// credentials), and a call without a valid access token refused.

const qbo = new QuickBooksDouble();
const xero = new XeroDouble();

beforeAll(async () => {
  await Promise.all([qbo.start(), xero.start()]);
});
afterAll(async () => {
  await Promise.all([qbo.stop(), xero.stop()]);
});

/** An access token for `refreshToken`, from the double's token endpoint. */
async function accessToken(
  tokenUrl: string,
  client: { clientId: string; clientSecret: string },
  refreshToken: string,
): Promise<{ status: number; token: string }> {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  return { status: response.status, token: body.access_token ?? '' };
}

describe('QuickBooks Online double', () => {
  it("starts a new company with QBO's chart without account numbers, Undeposited Funds its system account", async () => {
    const realmId = qbo.createRealm();
    const { status, token } = await accessToken(
      `${qbo.url}/oauth2/v1/tokens/bearer`,
      qbo,
      qbo.connect(realmId),
    );
    expect(status).toBe(200);
    const query = encodeURIComponent('select * from Account');
    const response = await fetch(`${qbo.url}/v3/company/${realmId}/query?query=${query}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    const accounts = ((await response.json()) as { QueryResponse: { Account: Record<string, unknown>[] } })
      .QueryResponse.Account;
    expect(accounts.length).toBeGreaterThan(10);
    expect(accounts.filter((a) => a.AcctNum !== undefined)).toEqual([]);
    expect(accounts.filter((a) => a.AccountSubType === 'UndepositedFunds').map((a) => a.Name)).toEqual([
      'Undeposited Funds',
    ]);
  });

  it('refuses a call without a valid access token, and a token exchange with the wrong app credentials', async () => {
    const realmId = qbo.createRealm();
    const query = encodeURIComponent('select * from Account');
    const refused = await fetch(`${qbo.url}/v3/company/${realmId}/query?query=${query}`, {
      headers: { Authorization: 'Bearer not-a-token', Accept: 'application/json' },
    });
    expect(refused.status).toBe(401);
    const wrongApp = await accessToken(
      `${qbo.url}/oauth2/v1/tokens/bearer`,
      { clientId: qbo.clientId, clientSecret: 'not-the-secret' },
      qbo.connect(realmId),
    );
    expect(wrongApp.status).toBe(401);
    expect(qbo.all(realmId, 'Account').length).toBeGreaterThan(10);
  });
});

describe('Xero double', () => {
  it("starts an organisation with the demo company's chart, its receivable and payable Xero's system accounts", async () => {
    const tenantId = xero.createTenant();
    const { status, token } = await accessToken(`${xero.url}/connect/token`, xero, xero.connect(tenantId));
    expect(status).toBe(200);
    const response = await fetch(`${xero.url}/api.xro/2.0/Accounts`, {
      headers: { Authorization: `Bearer ${token}`, 'Xero-Tenant-Id': tenantId, Accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    const accounts = ((await response.json()) as { Accounts: Record<string, unknown>[] }).Accounts;
    expect(
      accounts
        .filter((a) => a.SystemAccount === 'DEBTORS' || a.SystemAccount === 'CREDITORS')
        .map((a) => a.SystemAccount)
        .sort(),
    ).toEqual(['CREDITORS', 'DEBTORS']);
    expect(accounts.every((a) => a.Status === 'ACTIVE')).toBe(true);
  });

  it('refuses a call without a valid access token', async () => {
    const tenantId = xero.createTenant();
    const refused = await fetch(`${xero.url}/api.xro/2.0/Accounts`, {
      headers: {
        Authorization: 'Bearer not-a-token',
        'Xero-Tenant-Id': tenantId,
        Accept: 'application/json',
      },
    });
    expect(refused.status).toBe(401);
  });
});
