import type Database from 'better-sqlite3';

// Each entry moves the schema from version i to i+1 (PRAGMA user_version). Never edit a shipped entry:
// append a new one, so a data file made by an older emulator upgrades in place.
export const migrations: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    fee_passthrough_percent INTEGER NOT NULL DEFAULT 0,
    ach_enabled INTEGER NOT NULL DEFAULT 1,
    credit_card_enabled INTEGER NOT NULL DEFAULT 1,
    banking_active INTEGER NOT NULL DEFAULT 1,
    bank_name TEXT NOT NULL DEFAULT 'Emulator Bank',
    bank_account_last_four TEXT NOT NULL DEFAULT '6789',
    created_at TEXT NOT NULL
  );
  CREATE TABLE team_members (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    rest_api_access INTEGER NOT NULL,
    permissions TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    member_id TEXT NOT NULL REFERENCES team_members(id),
    key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );

  CREATE TABLE customers (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    name TEXT NOT NULL,
    emails TEXT NOT NULL,
    ach_enabled INTEGER,
    fee_passthrough_percent INTEGER,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );
  CREATE INDEX customers_org ON customers(org_id, seq);

  CREATE TABLE payment_links (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    name TEXT NOT NULL,
    own_amount_cents INTEGER NOT NULL,
    due_date TEXT,
    customer_id TEXT,
    reusable INTEGER NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    fee_passthrough_percent INTEGER,
    credit_card_enabled INTEGER,
    ach_enabled INTEGER,
    amount_editable INTEGER NOT NULL,
    status TEXT NOT NULL,
    completed_amount_cents INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );
  CREATE INDEX payment_links_org ON payment_links(org_id, seq);

  CREATE TABLE external_payments (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    payment_link_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    paid_at TEXT NOT NULL,
    voided INTEGER NOT NULL DEFAULT 0,
    external_reference_id TEXT,
    check_deposit_id TEXT,
    service_banking_transfer_id TEXT,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );
  CREATE INDEX external_payments_link ON external_payments(payment_link_id, seq);
  CREATE INDEX external_payments_deposit ON external_payments(check_deposit_id);
  -- The reference rule (decision “Reference rule”) as a constraint: one live record per (link, reference).
  CREATE UNIQUE INDEX external_payments_live_ref ON external_payments(payment_link_id, external_reference_id)
    WHERE voided = 0 AND external_reference_id IS NOT NULL;

  CREATE TABLE debit_memos (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    payment_link_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    description TEXT NOT NULL,
    voided INTEGER NOT NULL DEFAULT 0,
    external_reference_id TEXT,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );
  CREATE INDEX debit_memos_link ON debit_memos(payment_link_id, seq);
  CREATE UNIQUE INDEX debit_memos_live_ref ON debit_memos(payment_link_id, external_reference_id)
    WHERE voided = 0 AND external_reference_id IS NOT NULL;

  CREATE TABLE check_deposits (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    transfer_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    status TEXT NOT NULL,
    memo TEXT,
    created_at TEXT NOT NULL,
    cleared_at TEXT,
    returned_at TEXT,
    seq INTEGER NOT NULL
  );
  CREATE INDEX check_deposits_org ON check_deposits(org_id, seq);

  CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    payment_link_id TEXT,
    method_type TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    charged_amount_cents INTEGER NOT NULL,
    fee_cents INTEGER NOT NULL,
    platform_fee_cents INTEGER NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0,
    sent_to_network INTEGER NOT NULL DEFAULT 0,
    cancelled INTEGER NOT NULL DEFAULT 0,
    returned INTEGER NOT NULL DEFAULT 0,
    disbursement_id TEXT,
    created_at_ms INTEGER NOT NULL,
    settled_at TEXT,
    seq INTEGER NOT NULL
  );
  CREATE INDEX payments_org ON payments(org_id, seq);
  CREATE INDEX payments_link ON payments(payment_link_id);

  CREATE TABLE refunds (
    id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    reason TEXT,
    refund_date TEXT NOT NULL,
    voided INTEGER NOT NULL DEFAULT 0,
    returned INTEGER NOT NULL DEFAULT 0,
    returned_at TEXT,
    seq INTEGER NOT NULL
  );
  CREATE INDEX refunds_payment ON refunds(payment_id, seq);

  CREATE TABLE disbursements (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    status TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    bank_name TEXT NOT NULL,
    account_number_last_four TEXT NOT NULL,
    created_at TEXT NOT NULL,
    paid_at TEXT,
    seq INTEGER NOT NULL
  );

  -- Append-only record of money the service holds for the organization; a cross-check for conservation.
  CREATE TABLE balance_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    reason TEXT NOT NULL,
    object_id TEXT NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE link_sends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id TEXT NOT NULL,
    payment_link_id TEXT NOT NULL,
    email TEXT NOT NULL,
    name TEXT,
    phone_number TEXT,
    sms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE charge_authorizations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    payment_method TEXT,
    transaction_limit_cents INTEGER NOT NULL,
    expiration_date TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 0,
    emails TEXT NOT NULL,
    memo TEXT,
    send_email INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE files (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    key TEXT NOT NULL,
    type TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    customer_id TEXT,
    bank_account_fingerprint TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE vendors (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  CREATE TABLE vendor_delivery_methods (
    id TEXT PRIMARY KEY,
    vendor_id TEXT NOT NULL,
    type TEXT NOT NULL,
    details TEXT NOT NULL,
    replaced INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL
  );

  CREATE TABLE bills (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    vendor_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    due_date TEXT,
    invoice_number TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE bill_payments (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    bill_id TEXT NOT NULL,
    vendor_id TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    status TEXT NOT NULL,
    delivery_method_id TEXT NOT NULL,
    delivery_method_type TEXT NOT NULL,
    sent_at TEXT,
    completed_at TEXT,
    failure_reason TEXT,
    check_number TEXT,
    check_status TEXT,
    check_sent_at TEXT,
    check_delivered_at TEXT,
    check_deposited_at TEXT,
    check_returned_at TEXT,
    check_failed_at TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE webhook_subscriptions (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    url TEXT NOT NULL,
    secret TEXT,
    created_at TEXT NOT NULL,
    replaced_at TEXT
  );

  -- Transactional outbox: inserted in the transaction that causes the event, dispatched after commit.
  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    category TEXT NOT NULL,
    associated_object_type TEXT NOT NULL,
    associated_object_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    dispatched_at TEXT,
    seq INTEGER NOT NULL
  );
  CREATE INDEX events_org ON events(org_id, seq);

  CREATE TABLE delivery_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL
  );
  CREATE INDEX delivery_attempts_event ON delivery_attempts(event_id, id);
  `,
];

export function migrate(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    const sql = migrations[version]!;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
  return migrations.length;
}
