import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '@booksync/service-contract/schemas/index';
import { newId } from '../store/ids.js';
import { insertRow } from '../store/sql.js';
import type { Reader, Tx } from '../store/store.js';
import type { WebhookSubscriptionRow } from './rows.js';

/** Decision “Webhook subscription”: whsec_ + 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * 6.1 rule 1: one API subscription per account; creating one replaces it. The legacy kind (rule 2) is kept
 * apart and replaced only by another legacy one; it has no secret (rule 3).
 */
export function createWebhookSubscription(
  tx: Tx,
  orgId: string,
  url: string,
  kind: 'API' | 'LEGACY' = 'API',
): WebhookSubscriptionRow {
  tx.db
    .prepare(
      'UPDATE webhook_subscriptions SET replaced_at = ? WHERE org_id = ? AND kind = ? AND replaced_at IS NULL',
    )
    .run(tx.now.toISOString(), orgId, kind);
  const row: WebhookSubscriptionRow = {
    id: newId('wh'),
    org_id: orgId,
    kind,
    url,
    secret: kind === 'API' ? newWebhookSecret() : null,
    created_at: tx.now.toISOString(),
    replaced_at: null,
  };
  return insertRow(tx.db, 'webhook_subscriptions', row);
}

export function activeSubscriptions(
  reader: Reader,
  orgId: string,
  kind?: 'API' | 'LEGACY',
): WebhookSubscriptionRow[] {
  const rows = reader.db
    .prepare(
      'SELECT * FROM webhook_subscriptions WHERE org_id = ? AND replaced_at IS NULL ORDER BY created_at',
    )
    .all(orgId) as WebhookSubscriptionRow[];
  return kind === undefined ? rows : rows.filter((row) => row.kind === kind);
}
