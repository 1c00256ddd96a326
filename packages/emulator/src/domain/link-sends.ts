import type { SendPaymentLinkRequest } from '@booksync/service-contract/schemas/index';
import { badRequest } from '../errors.js';
import type { Reader, Tx } from '../store/store.js';
import { getPaymentLinkRow } from './payment-links.js';

export interface LinkSendRow {
  id: number;
  org_id: string;
  payment_link_id: string;
  email: string;
  name: string | null;
  phone_number: string | null;
  sms: number;
  kind: 'FIRST' | 'REMINDER';
  created_at: string;
}

/** 4.5 and decision “Sending a payment link”: a later send to the same recipient (email, case-insensitive) of the same link is a reminder. */
export function sendPaymentLink(
  tx: Tx,
  orgId: string,
  linkId: string,
  input: SendPaymentLinkRequest,
): { message: string } {
  const link = getPaymentLinkRow(tx, orgId, linkId);
  if (link.archived === 1) throw badRequest(`payment link ${linkId} is archived`);
  const seen = tx.db.prepare(
    'SELECT 1 FROM link_sends WHERE payment_link_id = ? AND lower(email) = lower(?) LIMIT 1',
  );
  const insert = tx.db.prepare(
    `INSERT INTO link_sends (org_id, payment_link_id, email, name, phone_number, sms, kind, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let first = 0;
  let reminders = 0;
  for (const recipient of input.recipients) {
    const kind = seen.get(linkId, recipient.email) ? 'REMINDER' : 'FIRST';
    if (kind === 'FIRST') first++;
    else reminders++;
    insert.run(
      orgId,
      linkId,
      recipient.email,
      recipient.name ?? null,
      recipient.phoneNumber ?? null,
      input.sendSms ? 1 : 0,
      kind,
      tx.now.toISOString(),
    );
  }
  return { message: `sent payment link to ${first} new recipient(s) and ${reminders} reminder(s)` };
}

export function listLinkSends(reader: Reader, orgId: string, linkId: string): LinkSendRow[] {
  getPaymentLinkRow(reader, orgId, linkId);
  return reader.db
    .prepare('SELECT * FROM link_sends WHERE payment_link_id = ? ORDER BY id')
    .all(linkId) as LinkSendRow[];
}
