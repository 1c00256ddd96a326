import { IDEMPOTENCY_WINDOW_MS, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { XeroTokenStore } from '../../../src/targets/xero/index.js';
import { idempotencyKey } from '../../../src/targets/xero/keys.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { documentsForContract } from '../target-contract.js';

// `idempotency-window` (packages/vendor-doubles/src/xero/README.md): Xero keeps an Idempotency-Key's first answer, refusals
// included, for 6 minutes and for the app, whatever the organisation (https://developer.xero.com/documentation/
// guides/idempotent-requests/idempotency/). So booksync's keys carry the organisation (and a retry after the
// window is found by its marker: push looks a key up first). The double's clock is moved on: no sleeping.

/** How far the test moved the double's clock ahead of the real one. */
let ahead = 0;
const double = doubleForFile(
  new XeroDouble({
    limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 },
    now: () => Date.now() + ahead,
  }),
);
const cipher = new TokenCipher('test-secret-for-xero-idempotency');

/** PUT /Contacts with this Idempotency-Key, as the SDK sends it. */
async function createContact(tenantId: string, key: string, name: string) {
  const tokens = new XeroTokenStore({
    tokenUrl: `${double.url}/connect/token`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage: new SealedTokenInMemory(cipher.seal(double.connect(tenantId))),
    cipher,
  });
  const response = await fetch(`${double.url}/api.xro/2.0/Contacts`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${await tokens.accessToken()}`,
      'xero-tenant-id': tenantId,
      'idempotency-key': key,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ Contacts: [{ Name: name }] }),
  });
  const body = (await response.json()) as { Contacts?: { ContactID?: string }[] };
  return { status: response.status, contactId: body.Contacts?.[0]?.ContactID };
}

describe('Xero Idempotency-Keys', () => {
  it('two organisations’ keys differ: the same customer and invoice pushed to both within 6 minutes are each their own', async () => {
    const docs = documentsForContract();
    expect(idempotencyKey('tenant-a', docs.invoice.key, 'create Invoice', {})).not.toBe(
      idempotencyKey('tenant-b', docs.invoice.key, 'create Invoice', {}),
    );
    const first = xeroOrganisation(double, cipher);
    const second = xeroOrganisation(double, cipher);
    for (const org of [first, second]) {
      const { context } = pushIndex();
      await expect(org.target().push(docs.invoice, context)).resolves.toMatchObject({ created: true });
    }
    const [a, b] = [first, second].map((org) => double.all(org.tenantId, 'Invoices'));
    expect([a?.length, b?.length]).toEqual([1, 1]);
    expect(a?.[0]?.Contact).not.toEqual(b?.[0]?.Contact);
    const keysOf = (tenantId: string) =>
      new Set(double.requests.filter((r) => r.tenantId === tenantId).flatMap((r) => r.idempotencyKey ?? []));
    const shared = [...keysOf(first.tenantId)].filter((k) => keysOf(second.tenantId).has(k));
    expect(shared).toEqual([]);
  });

  it('an answer, a refusal included, is replayed for 6 minutes and no longer: then the request is done anew', async () => {
    const org = xeroOrganisation(double, cipher);
    const key = `idem-${process.pid}-${Date.now()}`;
    const name = `Ada ${key}`;
    const made = await createContact(org.tenantId, key, name);
    expect(made.status).toBe(200);
    ahead += IDEMPOTENCY_WINDOW_MS - 20_000;
    expect(await createContact(org.tenantId, key, name)).toEqual(made);
    expect(double.all(org.tenantId, 'Contacts').filter((c) => c.Name === name)).toHaveLength(1);
    ahead += 40_000;
    // Past the window: done again, and Xero refuses a second contact of that name.
    expect(await createContact(org.tenantId, key, name)).toMatchObject({ status: 400 });

    const refusedKey = `${key}-refused`;
    expect(await createContact(org.tenantId, refusedKey, ' ')).toMatchObject({ status: 400 });
    ahead += 60_000;
    // Within the window the refusal is the answer, whatever is sent with the key.
    expect(await createContact(org.tenantId, refusedKey, `Grace ${key}`)).toMatchObject({ status: 400 });
    ahead += IDEMPOTENCY_WINDOW_MS;
    expect(await createContact(org.tenantId, refusedKey, `Grace ${key}`)).toMatchObject({ status: 200 });
  });
});
