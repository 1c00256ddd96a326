import { XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import { XeroTokenStore } from '../../../src/targets/xero/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { pushIndex } from '../../support/push-index.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { documentsForContract } from '../target-contract.js';

// `where-null-string-method` (packages/vendor-doubles/src/xero/README.md): Xero calls a `where`'s string method on every record,
// and one without the field fails the whole request with a 500 ("If you try filter based on an optional
// property and a single contact does not have it, you will receive that error. Your filter needs to include a
// check for the AccountNumber property not being null", a Xero engineer on freakboy3742/pyxero#181;
// `Reference.Contains` answered 500 in waynerobinson/xeroizer#138). booksync guards every such term with
// `!= null`, so an organisation with one invoice keyed without a Reference still finds booksync's records.

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-null-where');

/** An organisation where a bookkeeper keyed a sales invoice with no Reference. */
function organisationWithUnreferencedInvoice() {
  const org = xeroOrganisation(double, cipher);
  const contact = double.seed(org.tenantId, 'Contacts', { Name: 'Keyed by hand', ContactStatus: 'ACTIVE' });
  double.seed(org.tenantId, 'Invoices', {
    Type: 'ACCREC',
    InvoiceNumber: `KEYED-${org.tenantId.slice(0, 8)}`,
    Contact: { ContactID: contact.ContactID, Name: contact.Name },
    Status: 'AUTHORISED',
    LineItems: [],
    Total: 80,
    AmountDue: 80,
    AmountPaid: 0,
  });
  return org;
}

async function getInvoices(tenantId: string, where: string) {
  const tokens = new XeroTokenStore({
    tokenUrl: `${double.url}/connect/token`,
    clientId: double.clientId,
    clientSecret: double.clientSecret,
    storage: new SealedTokenInMemory(cipher.seal(double.connect(tenantId))),
    cipher,
  });
  const response = await fetch(`${double.url}/api.xro/2.0/Invoices?${new URLSearchParams({ where })}`, {
    headers: {
      authorization: `Bearer ${await tokens.accessToken()}`,
      'xero-tenant-id': tenantId,
      accept: 'application/json',
    },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Xero `where` on a field some records lack', () => {
  it('a string method on a null Reference answers 500; guarded with != null it answers the records that have it', async () => {
    const org = organisationWithUnreferencedInvoice();
    const unguarded = await getInvoices(org.tenantId, 'Reference.Contains("booksync key=")');
    expect(unguarded.status).toBe(500);
    expect(unguarded.body).toMatchObject({ ErrorNumber: 500, Type: 'UnknownErrorException' });
    for (const method of ['StartsWith', 'EndsWith']) {
      expect((await getInvoices(org.tenantId, `Reference.${method}("x")`)).status).toBe(500);
    }
    const guarded = await getInvoices(
      org.tenantId,
      'Reference != null && Reference.Contains("booksync key=")',
    );
    expect(guarded.status).toBe(200);
    expect(guarded.body.Invoices).toEqual([]);
    // OR'ed terms each guarded, as booksync sends a backlog's keys.
    const keys = await getInvoices(
      org.tenantId,
      '(Reference != null && Reference.Contains("a")) OR (Reference != null && Reference.Contains("b"))',
    );
    expect(keys.status).toBe(200);
  });

  it('the adapter still finds its records there: looked up before a create, by find(), and in a backlog', async () => {
    const org = organisationWithUnreferencedInvoice();
    const docs = documentsForContract();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of [docs.invoice, docs.payment])
      pushed.set(doc.key, await org.target().push(doc, context));
    const again = await org.target().push(docs.invoice, context);
    expect(again).toMatchObject({ created: false, remoteIds: pushed.get(docs.invoice.key)?.remoteIds });
    expect(await org.target().find(docs.payment.key)).toMatchObject({
      remoteIds: pushed.get(docs.payment.key)?.remoteIds,
    });
    const backlog = await org.target().pushMany([docs.invoice, docs.payment], context);
    expect(backlog.map((o) => (o instanceof Error ? o.message : o.created))).toEqual([false, false]);
    expect(double.requests.filter((r) => r.tenantId === org.tenantId && /where=/.test(r.url))).not.toEqual(
      [],
    );
  });
});
