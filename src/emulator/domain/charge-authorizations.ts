import type {
  ChargeAuthorizationPaymentMethod,
  RequestChargeAuthorizationRequest,
} from '../../service/schemas/index.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../store/ids.js';
import type { Reader, Tx } from '../store/store.js';
import { getCustomerRow } from './customers.js';
import type { ChargeAuthorizationRow } from './rows.js';

export function getChargeAuthorizationRow(reader: Reader, orgId: string, id: string): ChargeAuthorizationRow {
  const row = reader.db
    .prepare('SELECT * FROM charge_authorizations WHERE id = ? AND org_id = ?')
    .get(id, orgId) as ChargeAuthorizationRow | undefined;
  if (!row) throw notFound('charge authorization', id);
  return row;
}

/** 4.8 and D24: waits for the customer, inactive, no payment method; emails default to the customer's. */
export function requestChargeAuthorization(
  tx: Tx,
  orgId: string,
  customerId: string,
  input: RequestChargeAuthorizationRequest,
): ChargeAuthorizationRow {
  const customer = getCustomerRow(tx, orgId, customerId);
  const row: ChargeAuthorizationRow = {
    id: newId('ca'),
    org_id: orgId,
    customer_id: customerId,
    payment_method: null,
    transaction_limit_cents: input.transactionLimitCents,
    expiration_date: input.expirationDate,
    active: 0,
    emails: JSON.stringify(input.emails ?? JSON.parse(customer.emails)),
    memo: input.memo ?? null,
    send_email: input.sendEmail === false ? 0 : 1,
    created_at: tx.now.toISOString(),
  };
  tx.db
    .prepare(
      `INSERT INTO charge_authorizations (id, org_id, customer_id, payment_method, transaction_limit_cents, expiration_date,
         active, emails, memo, send_email, created_at)
       VALUES (@id, @org_id, @customer_id, @payment_method, @transaction_limit_cents, @expiration_date, @active, @emails,
         @memo, @send_email, @created_at)`,
    )
    .run(row);
  return row;
}

/** Sandbox: the customer authorizes with a card or bank account (charge_authorization.authorized). */
export function authorizeChargeAuthorization(
  tx: Tx,
  orgId: string,
  id: string,
  method: 'ACH' | 'Card',
): ChargeAuthorizationRow {
  const row = getChargeAuthorizationRow(tx, orgId, id);
  if (row.active === 1 || row.payment_method !== null)
    throw badRequest(`charge authorization ${id} was already answered`);
  const paymentMethod: ChargeAuthorizationPaymentMethod = {
    id: newId('pm'),
    type: method,
    achDetails:
      method === 'ACH'
        ? { bankName: 'Payer Bank', routingNumber: '011000015', accountNumberLastFour: '6789' }
        : null,
    cardDetails:
      method === 'Card'
        ? { brand: 'visa', last4: '4242', holderName: 'Sandbox Payer', expMonth: '12', expYear: '2030' }
        : null,
    serviceBalanceDetails: null,
    billingDetails: {
      name: 'Sandbox Payer',
      companyName: null,
      street: null,
      city: null,
      state: null,
      zip: null,
      countryCode: 'US',
    },
  };
  tx.db
    .prepare('UPDATE charge_authorizations SET active = 1, payment_method = ? WHERE id = ?')
    .run(JSON.stringify(paymentMethod), id);
  tx.emit({
    orgId,
    category: 'charge_authorization.authorized',
    objectType: 'charge_authorization',
    objectId: id,
  });
  return getChargeAuthorizationRow(tx, orgId, id);
}

/** Sandbox: revoked by the customer or the business (charge_authorization.deleted). */
export function revokeChargeAuthorization(tx: Tx, orgId: string, id: string): ChargeAuthorizationRow {
  const row = getChargeAuthorizationRow(tx, orgId, id);
  if (row.active === 0) throw badRequest(`charge authorization ${id} is not active`);
  tx.db.prepare('UPDATE charge_authorizations SET active = 0 WHERE id = ?').run(id);
  tx.emit({
    orgId,
    category: 'charge_authorization.deleted',
    objectType: 'charge_authorization',
    objectId: id,
  });
  return getChargeAuthorizationRow(tx, orgId, id);
}
