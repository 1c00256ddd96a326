import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, caller, type Harness, newDeposit, newLink, startHarness } from '../src/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('part 5: authentication and tenancy', () => {
  it('part 5 rule 1: no bearer -> 401 {error}', async () => {
    const response = await caller(h.baseUrl, undefined)('GET', '/customers');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String) });
  });

  it('part 5 rule 1: unknown bearer -> 401', async () => {
    expect((await caller(h.baseUrl, 'sk_test_nope')('GET', '/customers')).status).toBe(401);
  });

  it('part 5 rule 3: key without REST API access -> 403 with no code', async () => {
    const response = await h.as(h.keys.noRestAccess)('GET', '/customers');
    expect(response.status).toBe(403);
    expect(response.body.code).toBeUndefined();
    expect(response.body.error).toEqual(expect.any(String));
  });

  it('part 5 rule 4: no active banking -> 403 SERVICE_BANKING_NOT_ACTIVE, before the permission check', async () => {
    const other = await h.newOrganization({
      bankingActive: false,
      members: [{ name: 'Nobody', permissions: [] }],
    });
    const response = await other.call('GET', '/serviceBanking/checkDeposits');
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('SERVICE_BANKING_NOT_ACTIVE');
  });

  it('part 5 rule 5: missing permission -> 403 MISSING_PERMISSION naming it', async () => {
    const bookkeeper = h.as(h.keys.noPermissions);
    const list = await bookkeeper('GET', '/serviceBanking/checkDeposits');
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ error: 'missing permission BANKING_VIEW', code: 'MISSING_PERMISSION' });
    const deposit = await newDeposit(h.api, 100);
    const link = await newLink(h.api, 100);
    const apply = await bookkeeper('POST', `/serviceBanking/checkDeposits/${deposit.id}/apply`, {
      paymentLinkId: link.id,
    });
    expect(apply.status).toBe(403);
    expect(apply.body.error).toContain('BANKING_MANAGE');
    const webhook = await bookkeeper('POST', '/webhook', { url: 'http://127.0.0.1:1/hook' });
    expect(webhook.body).toEqual({ error: 'missing permission WEBHOOKS_MANAGE', code: 'MISSING_PERMISSION' });
  });

  it("part 5 rule 6: another organization's ids answer 404 exactly like missing ones", async () => {
    const link = await newLink(h.api, 500);
    const other = await h.newOrganization();
    const theirs = await other.call('GET', `/paymentLink/${link.id}`);
    const missing = await other.call('GET', '/paymentLink/pl_missing');
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(theirs.body.error).toBe(`payment link ${link.id} not found`);
    const customers = await other.call('GET', '/customers');
    expect(customers.body.totalResults).toBe(0);
  });

  it('decision “Sandbox controls”: POST /sandbox/organizations needs the admin token, returns keys once, stores only a hash', async () => {
    expect((await h.api('POST', '/sandbox/organizations', { name: 'x' })).status).toBe(401);
    const created = await caller(h.baseUrl, adminToken)('POST', '/sandbox/organizations', {
      name: 'Shown once',
    });
    expect(created.status).toBe(201);
    const key = created.body.members[0].apiKeys[0] as string;
    const stored = h.emulator.store.db.prepare('SELECT key_hash FROM api_keys').all() as {
      key_hash: string;
    }[];
    expect(stored.some((row) => row.key_hash === key)).toBe(false);
    expect((await caller(h.baseUrl, key)('GET', '/customers')).status).toBe(200);
  });
});
