// `npm run sandbox -- quickbooks|xero`: booksync's newcomer's way against the vendor's own free company (an Intuit
// developer account's sandbox company; a Xero demo company), opt-in and never in CI. With the vendor's
// credentials set (an app's client id and secret, a refresh token from `booksync targets connect`, the
// company's id), in a data folder of its own: `booksync targets setup <target> --apply` (booksync's accounts
// created in the company where missing, TARGET_ACCOUNTS written), then `booksync start`, whose demo books a
// business day and closes its month; then the month's certificate, read from the ledger, and what the company
// holds in booksync's accounts by its own trial balance (the certificate's figures). Without the credentials it
// exits 2 naming what to set. docs/targets/README.md, "Trying a vendor's sandbox".

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CloseCertificate } from '../src/close/certificate.js';
import { loadSettings } from '../src/config/settings.js';
import { EmbeddedLedger } from '../src/ledger/embedded-ledger.js';
import { quickBooksSettings } from '../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../src/runtime/targets/xero-connection.js';
import { TokenCipher } from '../src/targets/oauth/token-cipher.js';

type Target = 'quickbooks' | 'xero';

const vendor = {
  quickbooks: {
    prefix: 'QBO',
    company: 'QBO_REALM_ID',
    where:
      "a sandbox company of an Intuit developer account (developer.intuit.com: My Hub > Sandboxes); QBO_BASE_URL defaults here to Intuit's sandbox API",
  },
  xero: {
    prefix: 'XERO',
    company: 'XERO_TENANT_ID',
    where:
      "Xero's demo company, connected with booksync's default scopes (accounting.settings among them: set-up creates accounts)",
  },
} as const;

/** The settings the run needs that are not set, in the order to set them. */
function missingSettings(target: Target, env: NodeJS.ProcessEnv): string[] {
  const { prefix, company } = vendor[target];
  return [`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`, `${prefix}_REFRESH_TOKEN`, company].filter(
    (name) => !env[name],
  );
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const booksyncBin = path.resolve('bin/booksync.js');

function booksync(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [booksyncBin, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** A command to its end, its output shown as it comes; answers its exit code. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = booksync(args, env);
  child.stdout?.pipe(process.stdout, { end: false });
  child.stderr?.pipe(process.stderr, { end: false });
  // 'close': its output read to the end, not only the process gone.
  return new Promise((resolve) => child.once('close', (code) => resolve(code ?? 1)));
}

/** `booksync start` until its demo has closed the month (its last line), then stopped as Ctrl-C does. */
async function startUntilDemoDone(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<boolean> {
  const child = booksync(['start'], env);
  let seen = '';
  const done = new Promise<boolean>((resolve) => {
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      process.stdout.write(text);
      seen += text;
      if (seen.includes('each flow in the Temporal UI')) resolve(true);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', () => resolve(false));
    setTimeout(() => resolve(false), timeoutMs).unref();
  });
  const finished = await done;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGINT');
  await exited;
  return finished;
}

function storedCertificate(dataDir: string): CloseCertificate | null {
  const ledger = EmbeddedLedger.open({ path: path.join(dataDir, 'ledger.db') });
  try {
    const row = ledger.database
      .prepare(
        "SELECT document FROM reports WHERE kind = 'close-certificate' ORDER BY created_at DESC LIMIT 1",
      )
      .get() as { document: string } | undefined;
    return row ? (JSON.parse(row.document) as CloseCertificate) : null;
  } finally {
    ledger.close();
  }
}

const amount = (cents: number) => (cents / 100).toFixed(2);

async function main(argv: string[]): Promise<number> {
  const target = argv[0];
  if (target !== 'quickbooks' && target !== 'xero') {
    out('usage: npm run sandbox -- quickbooks|xero');
    return 2;
  }
  const { prefix, company, where } = vendor[target];
  const missing = missingSettings(target, process.env);
  if (missing.length > 0) {
    out(`npm run sandbox -- ${target}: set ${missing.join(', ')} (${where})`);
    return 2;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), `booksync-sandbox-${target}-`));
  const key = `${prefix}_TOKEN_KEY`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BOOKSYNC_DATA_DIR: dataDir,
    ACCOUNTING_TARGET: target,
    [key]: process.env[key] ?? randomBytes(24).toString('hex'),
    // The demo's month is closed: the emulator's clock moves to the next month.
    DEMO_CLOSES_MONTH: 'true',
    EMULATOR_ADMIN_TOKEN: process.env.EMULATOR_ADMIN_TOKEN ?? randomBytes(16).toString('hex'),
  };
  if (target === 'quickbooks') env.QBO_BASE_URL ??= 'https://sandbox-quickbooks.api.intuit.com';
  out(`booksync against ${target} company ${env[company]}, data folder ${dataDir}`);

  // The connection `booksync targets connect` would have saved, from the refresh token given.
  const settings = loadSettings(env);
  const cipher = new TokenCipher(String(env[key]));
  const connection =
    target === 'quickbooks' ? quickBooksSettings(settings).connection : xeroSettings(settings).connection;
  await connection.writeConnection({
    companyId: String(env[company]),
    refreshToken: cipher.seal(String(env[`${prefix}_REFRESH_TOKEN`])),
    connectedAt: new Date().toISOString(),
  });

  let code = 1;
  try {
    const setUp = await run(['targets', 'setup', target, '--apply'], env);
    if (setUp !== 0) {
      out('set-up did not complete: nothing started');
      return 1;
    }
    if (!(await startUntilDemoDone(env, 20 * 60_000))) {
      out('booksync start did not finish its demo (see above)');
      return 1;
    }
    const certificate = storedCertificate(dataDir);
    if (!certificate) {
      out('no certificate was made: the month stayed open (see above)');
      return 1;
    }
    out('');
    out(`certificate ${certificate.from} to ${certificate.to}: ${certificate.passes ? 'PASSES' : 'FAILS'}`);
    for (const problem of certificate.problems) out(`  ${problem}`);
    for (const figures of certificate.targetFigures ?? []) {
      out(
        `what the ${figures.target} company holds in booksync's accounts as of ${figures.asOf} (its trial balance):`,
      );
      for (const a of figures.accounts)
        out(`  ${a.role.padEnd(26)} ${amount(a.targetCents).padStart(12)}  ledger ${amount(a.ledgerCents)}`);
      out(`  open invoices and bills agreeing with the ledger: ${figures.agreeingDocuments}`);
    }
    code = certificate.passes ? 0 : 1;
  } finally {
    // The vendor rotates the refresh token as booksync uses it: the newest one, for the next run.
    const saved = await connection.readConnection();
    await connection.close?.();
    if (saved) {
      const file = process.env[`${prefix}_REFRESH_TOKEN_OUT`] ?? path.join(dataDir, 'refresh-token');
      writeFileSync(file, cipher.open(saved.refreshToken), { mode: 0o600 });
      out(`the newest refresh token is in ${file} (use it as ${prefix}_REFRESH_TOKEN next time)`);
    }
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
