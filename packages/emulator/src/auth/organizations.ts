import { newId } from '../store/ids.js';
import type { Reader, Tx } from '../store/store.js';
import { hashApiKey, newApiKey } from './api-keys.js';
import type { Permission } from './permissions.js';

export interface OrganizationRow {
  id: string;
  name: string;
  fee_passthrough_percent: number;
  ach_enabled: number;
  credit_card_enabled: number;
  banking_active: number;
  bank_name: string;
  bank_account_last_four: string;
  created_at: string;
}

export interface TeamMemberRow {
  id: string;
  org_id: string;
  name: string;
  rest_api_access: number;
  permissions: string;
}

export interface NewTeamMember {
  name: string;
  restApiAccess?: boolean;
  permissions?: Permission[];
  /** How many API keys to issue for the member (default 1). */
  apiKeys?: number;
}

export interface NewOrganization {
  name: string;
  feePassthroughPercent?: number;
  achEnabled?: boolean;
  creditCardEnabled?: boolean;
  bankingActive?: boolean;
  members?: NewTeamMember[];
}

export interface CreatedOrganization {
  organization: OrganizationView;
  members: {
    id: string;
    name: string;
    restApiAccess: boolean;
    permissions: Permission[];
    apiKeys: string[];
  }[];
}

export interface OrganizationView {
  id: string;
  name: string;
  feePassthroughPercent: number;
  achEnabled: boolean;
  creditCardEnabled: boolean;
  bankingActive: boolean;
  createdAt: string;
}

export function organizationView(row: OrganizationRow): OrganizationView {
  return {
    id: row.id,
    name: row.name,
    feePassthroughPercent: row.fee_passthrough_percent,
    achEnabled: row.ach_enabled === 1,
    creditCardEnabled: row.credit_card_enabled === 1,
    bankingActive: row.banking_active === 1,
    createdAt: row.created_at,
  };
}

/** POST /sandbox/organizations and seedDemo: an organization with its members and their keys (shown once). */
export function createOrganization(tx: Tx, input: NewOrganization): CreatedOrganization {
  const id = newId('org');
  tx.db
    .prepare(
      `INSERT INTO organizations (id, name, fee_passthrough_percent, ach_enabled, credit_card_enabled, banking_active, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      input.name,
      input.feePassthroughPercent ?? 0,
      input.achEnabled === false ? 0 : 1,
      input.creditCardEnabled === false ? 0 : 1,
      input.bankingActive === false ? 0 : 1,
      tx.now.toISOString(),
    );
  const members = (
    input.members ?? [
      {
        name: 'Owner',
        permissions: ['BANKING_VIEW', 'BANKING_MANAGE', 'PAYMENTS_REFUND', 'WEBHOOKS_MANAGE'],
      },
    ]
  ).map((member) => addTeamMember(tx, id, member));
  return { organization: organizationView(getOrganization(tx, id)!), members };
}

export function addTeamMember(
  tx: Tx,
  orgId: string,
  member: NewTeamMember,
): CreatedOrganization['members'][number] {
  const id = newId('tm');
  const restApiAccess = member.restApiAccess !== false;
  const granted = [...new Set(member.permissions ?? [])];
  tx.db
    .prepare(
      'INSERT INTO team_members (id, org_id, name, rest_api_access, permissions) VALUES (?, ?, ?, ?, ?)',
    )
    .run(id, orgId, member.name, restApiAccess ? 1 : 0, JSON.stringify(granted));
  const apiKeys: string[] = [];
  for (let i = 0; i < (member.apiKeys ?? 1); i++) {
    const key = newApiKey();
    tx.db
      .prepare('INSERT INTO api_keys (id, org_id, member_id, key_hash, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(newId('key'), orgId, id, hashApiKey(key), tx.now.toISOString());
    apiKeys.push(key);
  }
  return { id, name: member.name, restApiAccess, permissions: granted, apiKeys };
}

export function getOrganization(reader: Reader, orgId: string): OrganizationRow | undefined {
  return reader.db.prepare('SELECT * FROM organizations WHERE id = ?').get(orgId) as
    | OrganizationRow
    | undefined;
}

export interface Principal {
  org: OrganizationRow;
  member: TeamMemberRow;
  permissions: Permission[];
}

export function findPrincipalByKey(reader: Reader, key: string): Principal | undefined {
  const member = reader.db
    .prepare(`SELECT m.* FROM api_keys k JOIN team_members m ON m.id = k.member_id WHERE k.key_hash = ?`)
    .get(hashApiKey(key)) as TeamMemberRow | undefined;
  if (!member) return undefined;
  const org = getOrganization(reader, member.org_id);
  if (!org) return undefined;
  return { org, member, permissions: JSON.parse(member.permissions) as Permission[] };
}
