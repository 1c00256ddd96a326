import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { SqliteTargetIndex, TargetCompanyMismatchError } from '../../src/flows/push/target-index.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { createLogger } from '../../src/logging/logger.js';
import { openAccountingTargets } from '../../src/runtime/targets/accounting-targets.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import type { ServiceClient } from '../../src/service/client.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';

// A worker whose QuickBooks connection is another company's than the one its target index was built against
// (a reconnect elsewhere, a copied token file) starts, but pushes nothing there: what the index records as
// pushed is not in that company.

const key = 'startup-company-key-0123456789';
let double: QuickBooksDouble;
let dir: string;

beforeAll(async () => {
  double = await new QuickBooksDouble().start();
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-startup-company-'));
});
afterAll(async () => {
  await double?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('worker start-up with an index of another company', () => {
  it('marks the target unusable with a configuration error naming both companies, without stopping', async () => {
    const indexed = double.createRealm();
    const connected = double.createRealm();
    const settings = loadSettings({
      BOOKSYNC_DATA_DIR: dir,
      QBO_CLIENT_ID: double.clientId,
      QBO_CLIENT_SECRET: double.clientSecret,
      QBO_TOKEN_KEY: key,
      QBO_BASE_URL: double.url,
      QBO_OAUTH_URL: double.url,
      ACCOUNTING_TARGET: 'quickbooks',
    });
    await quickBooksSettings(settings).file.writeConnection({
      companyId: connected,
      refreshToken: new TokenCipher(key).seal(double.connect(connected)),
      connectedAt: new Date().toISOString(),
    });
    const ledger = EmbeddedLedger.open();
    const index = new SqliteTargetIndex(ledger.database);
    await index.claimCompany('quickbooks', indexed);
    const lines: string[] = [];
    const logger = createLogger(
      { level: 'info', format: 'json' },
      { write: (line: string) => lines.push(line) },
    );

    const targets = await openAccountingTargets({
      settings,
      ledger,
      index,
      service: {} as ServiceClient,
      logger,
    });

    const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ target: 'quickbooks', company: connected, indexCompany: indexed });
    expect(JSON.stringify(errors[0])).toContain('accounting target quickbooks is not usable');
    expect(JSON.stringify(errors[0])).toContain('--switch-company');
    // Not verified at the company (its accounts were never asked for), and no push can lease the index.
    expect(double.requests.filter((r) => r.realmId === connected)).toEqual([]);
    const target = targets?.dependencies.targets.get('quickbooks');
    expect(target?.company).toBe(connected);
    await expect(index.lease('quickbooks', target?.company)).rejects.toThrow(TargetCompanyMismatchError);
    expect(await index.company('quickbooks')).toMatchObject({ companyId: indexed });
    await targets?.close();
    ledger.close();
  });
});
