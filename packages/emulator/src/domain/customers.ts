import type {
  CreateCustomerRequest,
  ListCustomersQuery,
  UpdateCustomerRequest,
} from '@booksync/service-contract/schemas/index';
import { newId } from '../store/ids.js';
import { getOrgRow, rowsInOrder } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import { limitOffset } from './paging.js';
import { bit, type CustomerRow } from './rows.js';

export function getCustomerRow(reader: Reader, orgId: string, customerId: string): CustomerRow {
  return getOrgRow(reader.db, 'customers', 'customer', orgId, customerId);
}

export function createCustomer(tx: Tx, orgId: string, input: CreateCustomerRequest): CustomerRow {
  const id = newId('cus');
  tx.db
    .prepare(
      `INSERT INTO customers (id, org_id, name, emails, ach_enabled, fee_passthrough_percent, created_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      orgId,
      input.name,
      JSON.stringify(input.emails ?? []),
      bit(input.achEnabled),
      input.feePassthroughPercent ?? null,
      tx.now.toISOString(),
      tx.seq(),
    );
  return getCustomerRow(tx, orgId, id);
}

/** 4.7: omitted leaves a field unchanged; null clears the per-customer override. */
export function updateCustomer(
  tx: Tx,
  orgId: string,
  customerId: string,
  input: UpdateCustomerRequest,
): CustomerRow {
  const row = getCustomerRow(tx, orgId, customerId);
  const next: CustomerRow = { ...row };
  if (input.name !== undefined) next.name = input.name;
  if (input.emails !== undefined) next.emails = JSON.stringify(input.emails);
  if (input.achEnabled !== undefined) next.ach_enabled = bit(input.achEnabled);
  if (input.feePassthroughPercent !== undefined) next.fee_passthrough_percent = input.feePassthroughPercent;
  tx.db
    .prepare(
      `UPDATE customers SET name = @name, emails = @emails, ach_enabled = @ach_enabled,
         fee_passthrough_percent = @fee_passthrough_percent WHERE id = @id`,
    )
    .run(next);
  return next;
}

/** 4.6: case-insensitive substrings; both filters must match; totalResults counts every match. */
export function listCustomers(
  reader: Reader,
  orgId: string,
  query: ListCustomersQuery,
): { rows: CustomerRow[]; total: number } {
  const all = rowsInOrder<CustomerRow>(reader.db, 'customers', 'org_id = ?', orgId);
  const name = query.name?.toLowerCase();
  const email = query.email?.toLowerCase();
  // Filtered in code: emails are a JSON array, and SQLite's LIKE folds ASCII case only.
  const matches = all.filter(
    (row) =>
      (name === undefined || row.name.toLowerCase().includes(name)) &&
      (email === undefined ||
        (JSON.parse(row.emails) as string[]).some((address) => address.toLowerCase().includes(email))),
  );
  const { limit, offset } = limitOffset(query);
  return { rows: matches.slice(offset, offset + limit), total: matches.length };
}
