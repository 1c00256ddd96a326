import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENCRYPTION_REQUIRED_WITHOUT_KEYS } from '../../src/temporal/data-converter.js';
import { runBooksync } from '../support/booksync-cli.js';

// A production process started with PAYLOAD_ENCRYPTION_REQUIRED=true and no PAYLOAD_KEYS, as an operator starts
// it: it stops before reaching Temporal, with the one line that says why, instead of writing plain payloads.

const folder = mkdtempSync(path.join(tmpdir(), 'booksync-required-cli-'));
const envFile = path.join(folder, 'empty.env');
writeFileSync(envFile, '', { mode: 0o600 });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  // Nothing from a developer's .env or data folder.
  BOOKSYNC_ENV_FILE: envFile,
  BOOKSYNC_DATA_DIR: path.join(folder, 'data'),
  PAYLOAD_ENCRYPTION_REQUIRED: 'true',
  // Nothing listens there: a process that went on would fail on the connection instead.
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  SERVICE_BASE_URL: 'http://127.0.0.1:1',
  SERVICE_API_KEY: 'sk_test_required',
  WEBHOOK_SECRETS: 'whsec_required',
  LOG_FORMAT: 'json',
};

describe('PAYLOAD_ENCRYPTION_REQUIRED without keys', { timeout: 60_000 }, () => {
  for (const command of ['worker', 'ingress']) {
    it(`booksync ${command} refuses to start, saying why in one line`, async () => {
      const run = await runBooksync([command], { env, entry: 'source', timeoutMs: 45_000 });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr.trim()).toBe(`booksync: ${ENCRYPTION_REQUIRED_WITHOUT_KEYS}`);
      expect(run.stdout + run.stderr).not.toMatch(/cannot reach Temporal/);
    });
  }
});
