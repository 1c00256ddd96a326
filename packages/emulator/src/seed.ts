import { type CreatedOrganization, createOrganization } from './auth/organizations.js';
import { createCustomer } from './domain/customers.js';
import { createPaymentLink } from './domain/payment-links.js';
import { createVendor, setAchDeliveryMethod, setDeliveryMethod } from './domain/vendors.js';
import type { Store } from './store/store.js';

export interface DemoSeed {
  created: CreatedOrganization;
  /** Every permission. */
  apiKey: string;
  /** REST access, no permissions: banking answers MISSING_PERMISSION. */
  limitedApiKey: string;
  /** No REST access: every call answers 403 without a code. */
  noRestApiKey: string;
}

/** A demo organization: keys with and without permissions, customers, links, vendors. Emits no events. */
export function seedDemo(store: Store): DemoSeed {
  return store.write((tx) => {
    const created = createOrganization(tx, {
      name: 'Demo Landscaping LLC',
      feePassthroughPercent: 0,
      members: [
        {
          name: 'Owner',
          permissions: ['BANKING_VIEW', 'BANKING_MANAGE', 'PAYMENTS_REFUND', 'WEBHOOKS_MANAGE'],
        },
        { name: 'Bookkeeper', permissions: [] },
        { name: 'Dashboard only', restApiAccess: false },
      ],
    });
    const orgId = created.organization.id;
    const acme = createCustomer(tx, orgId, { name: 'Acme Corp', emails: ['ap@acme.example'] });
    const globex = createCustomer(tx, orgId, {
      name: 'Globex',
      emails: ['billing@globex.example'],
      feePassthroughPercent: 100,
    });
    createCustomer(tx, orgId, { name: 'Initech', emails: ['pay@initech.example'], achEnabled: false });
    createPaymentLink(tx, orgId, {
      name: 'INV-1001',
      requestedAmountCents: 125_000,
      customerId: acme.id,
      dueDate: '2026-12-31',
    });
    createPaymentLink(tx, orgId, {
      name: 'INV-1002',
      requestedAmountCents: 48_050,
      customerId: globex.id,
      amountEditable: true,
    });
    createPaymentLink(tx, orgId, { name: 'Donations', requestedAmountCents: 1_000, reusable: true });
    const paper = createVendor(tx, orgId, { name: 'Paper Supply Co', email: 'ar@paper.example' });
    setAchDeliveryMethod(tx, orgId, paper.id, {
      routingNumber: '011000015',
      accountNumber: '000123456789',
      accountType: 'CHECKING',
    });
    const mulch = createVendor(tx, orgId, { name: 'Mulch & More' });
    setDeliveryMethod(tx, orgId, mulch.id, {
      type: 'CHECK',
      checkAddress: {
        name: 'Mulch & More',
        street: '12 Garden Way',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
      },
    });
    // Seeding is setup, not history: no receiver should hear of it.
    tx.db.prepare('DELETE FROM events WHERE org_id = ?').run(orgId);
    const [owner, bookkeeper, dashboard] = created.members;
    return {
      created,
      apiKey: owner!.apiKeys[0]!,
      limitedApiKey: bookkeeper!.apiKeys[0]!,
      noRestApiKey: dashboard!.apiKeys[0]!,
    };
  });
}
