import { createHash } from 'node:crypto';
import { FileType, type UploadFileFields } from '@booksync/service-contract/schemas/index';
import { badRequest, EmulatorHttpError } from '../errors.js';
import { newId } from '../store/ids.js';
import type { Tx } from '../store/store.js';
import { getCustomerRow } from './customers.js';
import type { FileRow } from './rows.js';

/** Decision “Files”: type wins when both agree; a disagreement, or neither, answers 400. */
export function resolveFileType(fields: UploadFileFields): FileRow['type'] {
  let fromData: FileRow['type'] | undefined;
  if (fields.data !== undefined) {
    const value = new URLSearchParams(fields.data).get('type');
    const parsed = FileType.safeParse(value);
    if (!parsed.success)
      throw badRequest(
        'invalid data: expected type=<ACH_DEBIT_AUTHORIZATION_PDF|CREDIT_CARD_AUTHORIZATION_PDF|INVOICE_PDF>',
      );
    fromData = parsed.data;
  }
  if (fields.type !== undefined && fromData !== undefined && fields.type !== fromData) {
    throw badRequest(`invalid data: type ${fromData} disagrees with type ${fields.type}`);
  }
  const type = fields.type ?? fromData;
  if (type === undefined)
    throw badRequest('invalid type: either type or data (type=<FILE TYPE>) is required');
  return type;
}

/** Identifies a bank account without storing its number. */
function accountFingerprint(routingNumber: string, accountNumber: string): string {
  return createHash('sha256').update(`${routingNumber}:${accountNumber}`).digest('hex');
}

/** 4.9 with decision “Files”, including 409 SHARED_ACCOUNT for a bank account already authorized by another customer. */
export function uploadFile(
  tx: Tx,
  orgId: string,
  fields: UploadFileFields,
  filename: string,
  sizeBytes: number,
): FileRow {
  const type = resolveFileType(fields);
  let fingerprint: string | null = null;
  if (fields.customerId !== undefined) getCustomerRow(tx, orgId, fields.customerId);
  if (
    type === 'ACH_DEBIT_AUTHORIZATION_PDF' &&
    fields.routingNumber !== undefined &&
    fields.accountNumber !== undefined
  ) {
    fingerprint = accountFingerprint(fields.routingNumber, fields.accountNumber);
    const other = tx.db
      .prepare(
        `SELECT customer_id FROM files WHERE org_id = ? AND bank_account_fingerprint = ? AND customer_id IS NOT ?
         LIMIT 1`,
      )
      .get(orgId, fingerprint, fields.customerId ?? null) as { customer_id: string | null } | undefined;
    if (other) {
      throw new EmulatorHttpError(
        409,
        'this bank account already has an ACH debit authorization on file for a different customer',
        'SHARED_ACCOUNT',
      );
    }
  }
  const id = newId('file');
  const row: FileRow = {
    id,
    org_id: orgId,
    key: `${orgId}/${id}/${filename || 'upload.pdf'}`,
    type,
    size_bytes: sizeBytes,
    customer_id: fields.customerId ?? null,
    bank_account_fingerprint: fingerprint,
    created_at: tx.now.toISOString(),
  };
  tx.db
    .prepare(
      `INSERT INTO files (id, org_id, key, type, size_bytes, customer_id, bank_account_fingerprint, created_at)
       VALUES (@id, @org_id, @key, @type, @size_bytes, @customer_id, @bank_account_fingerprint, @created_at)`,
    )
    .run(row);
  return row;
}
