import type {
  ChargeAuthorizationPaymentMethod,
  RequestChargeAuthorizationRequest,
} from '@booksync/service-contract/schemas/index';
import { badRequest } from '../errors.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { getCustomerRow } from './customers.js';
import type { ChargeAuthorizationRow } from './rows.js';
import { SANDBOX_PAYER_BILLING, sandboxPayerMethod } from './sandbox-payer.js';

export function getChargeAuthorizationRow(reader: Reader, orgId: string, id: string): ChargeAuthorizationRow {
  return getOrgRow(reader.db, 'charge_authorizations', 'charge authorization', orgId, id);
}

/** 4.8 and decision “Charge authorizations”: waits for the customer, inactive, no payment method; emails default to the customer's. */
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
  return insertRow(tx.db, 'charge_authorizations', row);
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
    ...sandboxPayerMethod(method),
    serviceBalanceDetails: null,
    billingDetails: { ...SANDBOX_PAYER_BILLING, countryCode: 'US' },
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
