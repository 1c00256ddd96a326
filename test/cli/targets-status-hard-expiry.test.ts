import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetsCommand } from '../../src/cli/commands/targets.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../../src/runtime/targets/xero-connection.js';

// `booksync targets status` warns when a connected company's refresh token hard-expires within 14 days
// (QuickBooks' five-year limit, kept with the connection as refreshTokenHardExpiresAt): the date and the
// command to run before it, in the text and in --json; nothing when it is further off or unknown.

const DAY = 86_400_000;
const dir = mkdtempSync(path.join(tmpdir(), 'booksync-status-hard-expiry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings: Settings = loadSettings({
  BOOKSYNC_DATA_DIR: dir,
  ACCOUNTING_TARGET: 'quickbooks,xero',
  QBO_CLIENT_ID: 'qbo-client',
  QBO_CLIENT_SECRET: 'qbo-client-secret-never-shown',
  QBO_TOKEN_KEY: 'qbo-token-key-0123456789',
  XERO_CLIENT_ID: 'xero-client',
  XERO_CLIENT_SECRET: 'xero-client-secret-never-shown',
  XERO_TOKEN_KEY: 'xero-token-key-0123456789',
});

/** Both companies connected, each refresh token hard-expiring the given number of days from now (or never said). */
async function connect(qboDays: number | null, xeroDays: number | null) {
  const nowMs = Date.now();
  const at = (days: number | null) =>
    days === null ? {} : { refreshTokenHardExpiresAt: new Date(nowMs + days * DAY).toISOString() };
  await quickBooksSettings(settings).connection.writeConnection({
    companyId: 'realm-9130',
    refreshToken: 'SEALED-QBO-REFRESH-TOKEN',
    connectedAt: '2021-11-20T00:00:00.000Z',
    ...at(qboDays),
  });
  await xeroSettings(settings).connection.writeConnection({
    companyId: 'tenant-42',
    refreshToken: 'SEALED-XERO-REFRESH-TOKEN',
    connectedAt: '2026-01-02T00:00:00.000Z',
    ...at(xeroDays),
  });
  return { qbo: at(qboDays).refreshTokenHardExpiresAt, xero: at(xeroDays).refreshTokenHardExpiresAt };
}

async function status(...flags: string[]): Promise<{ code: number | undefined; text: string }> {
  const lines: string[] = [];
  const code = await targetsCommand.run({
    args: ['status', ...flags],
    settings,
    logger: silentLogger,
    out: (line) => lines.push(line),
  });
  return { code, text: lines.join('\n') };
}

describe('booksync targets status and the refresh token’s hard expiry', () => {
  it('warns of a connection hard-expiring in 10 days, with its date and the command, and not of one in 40', async () => {
    const { qbo, xero } = await connect(10, 40);
    const text = await status();
    expect(text.code).toBe(0);
    expect(text.text).toContain('quickbooks: 0 pushed, 0 pending');
    const warnings = text.text.split('\n').filter((l) => l.startsWith('WARNING '));
    expect(warnings).toEqual([
      `WARNING quickbooks: the connection to company realm-9130 stops working at ${qbo} (in 10 days), however often it is used: run booksync targets connect quickbooks before then`,
    ]);
    expect(text.text).not.toContain('tenant-42');
    expect(text.text).not.toContain(xero);

    const json = JSON.parse((await status('--json')).text);
    expect(json.targets.map((t: { target: string }) => t.target)).toEqual(['quickbooks', 'xero']);
    expect(json.warnings).toEqual([
      {
        target: 'quickbooks',
        companyId: 'realm-9130',
        hardExpiresAt: qbo,
        warning: expect.stringContaining('run booksync targets connect quickbooks before then'),
      },
    ]);
    for (const out of [text.text, JSON.stringify(json)]) {
      expect(out).not.toContain('SEALED-');
      expect(out).not.toContain('secret-never-shown');
    }
  });

  it('warns of Xero too when its connection says so, and of neither when both are 40 days off or unknown', async () => {
    await connect(40, 10);
    const xeroSoon = await status();
    expect(xeroSoon.text).toMatch(
      /^WARNING xero: the connection to company tenant-42 stops working at .* \(in 10 days\)/m,
    );
    expect(xeroSoon.text).not.toMatch(/WARNING quickbooks/);

    await connect(40, null);
    const far = await status();
    expect(far.text).not.toContain('WARNING');
    expect(JSON.parse((await status('--json')).text).warnings).toEqual([]);
  });
});
