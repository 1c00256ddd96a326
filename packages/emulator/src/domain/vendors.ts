import type {
  CheckAddress,
  CreateVendorRequest,
  UpdateVendorAchMethodRequest,
  VendorAchDetails,
  WireDetails,
} from '@booksync/service-contract/schemas/index';
import { badRequest } from '../errors.js';
import { newId } from '../store/ids.js';
import { getOrgRow, insertRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import type { VendorDeliveryMethodRow, VendorRow } from './rows.js';

export type DeliveryMethodDetails =
  | { type: 'ACH'; achDetails: VendorAchDetails }
  | { type: 'CHECK'; checkAddress: CheckAddress }
  | { type: 'INTERNATIONAL_WIRE'; wireDetails: WireDetails };

/** Decision “Vendors”: a deleted vendor answers 404 like a missing one. */
export function getVendorRow(reader: Reader, orgId: string, vendorId: string): VendorRow {
  return getOrgRow(reader.db, 'vendors', 'vendor', orgId, vendorId, 'deleted = 0');
}

export function createVendor(tx: Tx, orgId: string, input: CreateVendorRequest): VendorRow {
  const row: VendorRow = {
    id: newId('ven'),
    org_id: orgId,
    name: input.name,
    email: input.email ?? null,
    deleted: 0,
    created_at: tx.now.toISOString(),
  };
  return insertRow(tx.db, 'vendors', row);
}

export function currentDeliveryMethods(reader: Reader, vendorId: string): VendorDeliveryMethodRow[] {
  return rowsInOrder(reader.db, 'vendor_delivery_methods', 'vendor_id = ? AND replaced = 0', vendorId);
}

/**
 * Decision “Vendors”: setting a method makes a new one with a new id that replaces the old one of the same type.
 * Emits vendor.payout_method_updated (decision “Which transition emits which event”), whether the business (4.10) or the onboarding form set it.
 */
export function setDeliveryMethod(
  tx: Tx,
  orgId: string,
  vendorId: string,
  details: DeliveryMethodDetails,
): VendorDeliveryMethodRow {
  getVendorRow(tx, orgId, vendorId);
  tx.db
    .prepare(
      'UPDATE vendor_delivery_methods SET replaced = 1 WHERE vendor_id = ? AND type = ? AND replaced = 0',
    )
    .run(vendorId, details.type);
  const row: VendorDeliveryMethodRow = {
    id: newId('vdm'),
    vendor_id: vendorId,
    type: details.type,
    details: JSON.stringify(details),
    replaced: 0,
    created_at: tx.now.toISOString(),
    seq: tx.seq(),
  };
  insertRow(tx.db, 'vendor_delivery_methods', row);
  tx.emit({ orgId, category: 'vendor.payout_method_updated', objectType: 'vendor', objectId: vendorId });
  return row;
}

/** 4.10: the full account number is never stored; the last four are. */
export function setAchDeliveryMethod(
  tx: Tx,
  orgId: string,
  vendorId: string,
  input: UpdateVendorAchMethodRequest,
): VendorDeliveryMethodRow {
  return setDeliveryMethod(tx, orgId, vendorId, {
    type: 'ACH',
    achDetails: {
      routingNumber: input.routingNumber,
      accountNumberLastFour: input.accountNumber.slice(-4),
      accountType: input.accountType,
    },
  });
}

/** 4.11 and decision “Vendors”: refused while a bill payment is in flight. */
export function deleteVendor(tx: Tx, orgId: string, vendorId: string): void {
  getVendorRow(tx, orgId, vendorId);
  const inFlight = tx.db
    .prepare(`SELECT 1 FROM bill_payments WHERE vendor_id = ? AND status = 'PENDING' LIMIT 1`)
    .get(vendorId);
  if (inFlight) throw badRequest(`vendor ${vendorId} has a bill payment in flight`);
  tx.db.prepare('UPDATE vendors SET deleted = 1 WHERE id = ?').run(vendorId);
}
