// biome-ignore-all lint/suspicious/noExplicitAny: the harness hands tests untyped JSON bodies to assert on
import type { AddressInfo } from 'node:net';
import { OpenApiResponseValidator } from '@booksync/service-contract/openapi-validator';
import type { Permission } from '@booksync/service-contract/schemas/index';
import { createEmulator, type Emulator, type EmulatorOptions } from './server.js';

export const adminToken = 'test-admin-token';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
}

export type Call = <T = any>(method: string, path: string, body?: unknown) => Promise<ApiResponse<T>>;

export interface Harness {
  emulator: Emulator;
  baseUrl: string;
  /** A key with every permission. */
  api: Call;
  /** The emulator's admin token: organizations and clock moves (E17). */
  admin: Call;
  as(key: string): Call;
  keys: { full: string; noRestAccess: string; noPermissions: string };
  orgId: string;
  /** Another organization with every permission, for scoping tests. */
  newOrganization(body?: Record<string, unknown>): Promise<{ orgId: string; key: string; call: Call }>;
  close(): Promise<void>;
}

const contract = new OpenApiResponseValidator();

/**
 * Every JSON answer of a non-sandbox route is checked against the OpenAPI document; a mismatch fails the
 * call that received it, so each rule test is also a contract test.
 */
function checkContract(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): void {
  if (path.startsWith('/sandbox/') || !contentType?.includes('application/json')) return;
  const result = contract.validate({ method, path, status, body });
  if (!result.valid) throw new Error(`contract: ${method} ${path} ${status}: ${result.errors.join('; ')}`);
}

export function caller(baseUrl: string, key: string | undefined): Call {
  return async (method, path, body) => {
    const headers: Record<string, string> = {};
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    checkContract(method, path, response.status, response.headers.get('content-type'), parsed);
    return { status: response.status, body: parsed as any, text };
  };
}

const allPermissions: Permission[] = ['BANKING_VIEW', 'BANKING_MANAGE', 'PAYMENTS_REFUND', 'WEBHOOKS_MANAGE'];

export async function startHarness(
  options: EmulatorOptions = {},
  org: Record<string, unknown> = {},
): Promise<Harness> {
  const emulator = createEmulator({ adminToken, ...options });
  await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = emulator.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = caller(baseUrl, adminToken);

  const newOrganization = async (body: Record<string, unknown> = {}) => {
    const created = await admin('POST', '/sandbox/organizations', {
      name: 'Test Org',
      members: [{ name: 'Owner', permissions: allPermissions }],
      ...body,
    });
    if (created.status !== 201) throw new Error(`org creation failed: ${created.text}`);
    const key = created.body.members[0].apiKeys[0] as string;
    return {
      orgId: created.body.organization.id as string,
      key,
      call: caller(baseUrl, key),
      created: created.body,
    };
  };

  const main = await newOrganization({
    members: [
      { name: 'Owner', permissions: allPermissions },
      { name: 'No REST', restApiAccess: false, permissions: allPermissions },
      { name: 'Bookkeeper', permissions: [] },
    ],
    ...org,
  });
  const members = main.created.members as { apiKeys: string[] }[];
  const keys = {
    full: members[0]!.apiKeys[0]!,
    noRestAccess: members[1]!.apiKeys[0]!,
    noPermissions: members[2]!.apiKeys[0]!,
  };
  return {
    emulator,
    baseUrl,
    api: caller(baseUrl, keys.full),
    admin,
    as: (key) => caller(baseUrl, key),
    keys,
    orgId: main.orgId,
    newOrganization: async (body) => {
      const { orgId, key, call } = await newOrganization(body);
      return { orgId, key, call };
    },
    close: () => emulator.app.close(),
  };
}

/** A link of `amount` cents, with optional extra create fields. */
export async function newLink(api: Call, amount: number, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await api('POST', '/paymentLink', {
    name: 'Invoice',
    requestedAmountCents: amount,
    ...extra,
  });
  if (response.status !== 201) throw new Error(`link creation failed: ${response.text}`);
  return response.body;
}

export async function newDeposit(api: Call, amount: number): Promise<any> {
  const response = await api('POST', '/sandbox/checkDeposits', { amountCents: amount });
  if (response.status !== 201) throw new Error(`deposit failed: ${response.text}`);
  return response.body;
}
