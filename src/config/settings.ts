import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { checkedTimeZone } from '../workflow-safe/business-days.js';
import { withSecretFiles } from './secret-files.js';
import { csv, duration, flag, httpUrl, port } from './setting-types.js';
import { targetSettings } from './target-settings.js';

// Every setting booksync reads, from the environment (and the deployment's env file, env-file.ts; a secret X
// also from the file X_FILE names, secret-files.ts). A setting left unset means "embedded default": no
// TEMPORAL_ADDRESS starts a Temporal dev server, no SERVICE_BASE_URL starts the emulator. The README's
// configuration reference is generated from these descriptions.

/** A proxy TRUST_PROXY may name: an address, a CIDR, or one of proxy-addr's named ranges. */
const isProxyAddress = (item: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) return true;
  const [address = '', prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
};

/**
 * Settings whose default is a file in BOOKSYNC_DATA_DIR: the one place both the code (dataFile) and the
 * configuration reference (src/cli/config-reference.ts) take the name from.
 */
export const dataDirDefaults = {
  LEDGER_DB: 'ledger.db',
  QBO_TOKEN_FILE: 'quickbooks-connection.json',
  XERO_TOKEN_FILE: 'xero-connection.json',
  LEDGER_MIRROR_DB: 'ledger-mirror.db',
} as const;

export const settingsSchema = z.object({
  BOOKSYNC_DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe('Folder for SQLite files (Temporal dev server, emulator, ledger).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level.'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional().describe('json (production) or pretty.'),

  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[\w.-]+:\d+$/, 'host:port')
    .optional()
    .describe('Temporal frontend host:port. Unset: booksync starts a Temporal dev server.'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('Temporal namespace.'),
  TEMPORAL_TASK_QUEUE: z
    .string()
    .min(1)
    .default('booksync')
    .describe('Task queue of booksync workflows and activities; more workers on it scale out.'),
  TEMPORAL_API_KEY: z.string().min(1).optional().describe('API key for Temporal Cloud (implies TLS).'),
  TEMPORAL_TLS: flag('false').describe('Connect to Temporal over TLS.'),
  PAYLOAD_KEYS: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Encrypts every payload booksync gives Temporal (AES-256-GCM): `<id>=<base64 of 32 bytes>`, comma-separated; the first encrypts, all decrypt (add the new key first to rotate). Keep it outside the data folder. Unset: payloads are not encrypted.',
    ),
  CODEC_CORS_ORIGIN: z
    .string()
    .url()
    .optional()
    .describe(
      "The Temporal Web UI's origin allowed to call booksync's codec server (/codec/decode) from the browser, e.g. https://temporal.example.com; no other origin gets a CORS answer. Default with the embedded dev server: its UI.",
    ),
  PAYLOAD_ENCRYPTION_REQUIRED: flag('false').describe(
    'Payload encryption is required: a process without PAYLOAD_KEYS (or PAYLOAD_KEYS_FILE) refuses to start rather than give Temporal plain payloads, and a payload that is not encrypted is refused when read (a workflow task or a client call fails naming it) instead of being read as it is. Turn it on once no running workflow started before encryption.',
  ),
  CODEC_SERVER_TOKEN: z
    .string()
    .min(24, 'at least 24 characters')
    .optional()
    .describe(
      "Serves booksync's codec server (/codec/decode, with PAYLOAD_KEYS) to callers presenting `Authorization: Bearer CODEC_SERVER_TOKEN` (the temporal CLI's `--codec-auth 'Bearer TOKEN'`), on the operations listener. Unset (and CODEC_SERVER_OPEN off): not served, except open on loopback to the embedded dev server's Web UI in `booksync start`.",
    ),
  CODEC_SERVER_OPEN: flag('false').describe(
    'Serves the codec server without a credential: whoever reaches the listener decodes every history. Only for a listener nobody else reaches (loopback development); not with CODEC_SERVER_TOKEN.',
  ),
  CODEC_SERVER_ENCODE: flag('false').describe(
    "Also serves /codec/encode (payloads sealed with the current key, e.g. for the Web UI's start and signal forms); off, it answers 404.",
  ),
  CODEC_DECODE_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(600)
    .describe(
      'Codec server requests a caller address may make per minute (burst included); past it, 429. Each decode is logged with the caller and the payload count, never the payloads.',
    ),
  PAYLOAD_KEYS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A file holding the payload keys instead (one `<id>=<key>` per line), read as every `_FILE` secret is; setting PAYLOAD_KEYS too is an error.',
    ),
  TEMPORAL_TLS_CERT_PATH: z.string().optional().describe('mTLS client certificate (PEM) for Temporal.'),
  TEMPORAL_TLS_KEY_PATH: z.string().optional().describe('mTLS client key (PEM) for Temporal.'),
  TEMPORAL_DEV_PORT: port
    .default(7233)
    .describe('Port of the embedded dev server (when TEMPORAL_ADDRESS is unset).'),
  TEMPORAL_UI_PORT: port.default(8233).describe('Port of the embedded dev server Web UI.'),
  TEMPORAL_UI_URL: httpUrl
    .transform((url) => url.replace(/\/+$/, ''))
    .optional()
    .describe(
      "Web UI of the Temporal server TEMPORAL_ADDRESS names (e.g. https://temporal.example.com), for the links to each flow that `booksync start`, the demo and the console show. Unset with TEMPORAL_ADDRESS: no links; the embedded dev server's own UI otherwise.",
    ),

  SERVICE_BASE_URL: httpUrl
    .optional()
    .describe('Base URL of the payment service. Unset: booksync starts its emulator.'),
  SERVICE_ENVIRONMENT: z
    .enum(['sandbox', 'production'])
    .default('sandbox')
    .describe(
      'Which of the service environments SERVICE_BASE_URL belongs to (used when no base URL is given for a real service).',
    ),
  SERVICE_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe('Bearer key for the service API (required with SERVICE_BASE_URL).'),
  SERVICE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(10_000)
    .describe('Per-request timeout of service API calls.'),

  WEBHOOK_SECRETS: csv
    .optional()
    .describe('Comma-separated webhook secrets (whsec_...); several during rotation.'),
  WEBHOOK_ALLOW_UNSIGNED: flag('false').describe(
    'Accept unsigned deliveries (only for a legacy subscription created before signing).',
  ),
  WEBHOOK_TOLERANCE_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe('Accepted distance between a signature timestamp and now.'),

  INGRESS_HOST: z.string().min(1).default('127.0.0.1').describe('Address the webhook ingress listens on.'),
  INGRESS_PORT: port
    .default(3000)
    .describe(
      'Port of the webhook ingress (and, without OPS_PORT, of the command API, and of /metrics and /events/unrouted, which then require the command API key as a bearer).',
    ),
  INGRESS_PUBLIC_URL: httpUrl.optional().describe('URL the service delivers webhooks to.'),
  COMMAND_API_KEY: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe('Bearer key of the command API (apply deposits, reconcile...).'),
  OPS_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Address of the operations listener (used when OPS_PORT is set); keep it private.'),
  OPS_PORT: port
    .optional()
    .describe(
      'Port of a separate operations listener (keep it private): the command API, /metrics and /events/unrouted move there, open to Prometheus without a key, and INGRESS_PORT serves only the webhook route and /healthz, /readyz. Unset: one listener serves all, and /metrics and /events/unrouted answer only with COMMAND_API_KEY as a bearer (to nobody without one).',
    ),
  OPERATOR_ROUTES_ON_WEBHOOK_LISTENER: flag('false').describe(
    'Serve the console and command API on the webhook listener although INGRESS_HOST is not loopback and OPS_PORT is unset (start-up refuses that otherwise).',
  ),

  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      if (/^\d+$/.test(value) && Number(value) >= 1) return Number(value);
      const proxies = value.split(',').map((item) => item.trim());
      const bad = proxies.find((item) => !isProxyAddress(item));
      if (bad === undefined) return proxies;
      ctx.addIssue({
        code: 'custom',
        message: `a number of proxies (1, 2...) or comma-separated proxy addresses or CIDRs (loopback, linklocal, uniquelocal too), got ${bad}`,
      });
      return z.NEVER;
    })
    .describe(
      "The reverse proxies in front of the ingress whose X-Forwarded-For and X-Forwarded-Proto are believed, so a request's address (the console's and the command API's throttles, the console's audit log) is the client's: a number of hops (1: the one proxy in front), or the proxies' comma-separated addresses or CIDRs (e.g. `10.0.0.0/8`, `loopback`). Unset: no proxy is trusted, the address is the connection's and X-Forwarded-* headers are ignored.",
    ),

  CONSOLE_PASSWORD: z
    .string()
    .min(12, 'at least 12 characters')
    .optional()
    .describe(
      "Password of the bookkeeper's web console (/console on the operations listener), account `bookkeeper`: sees every page and acts (retry, close the books). Not the command API key, which does not sign in. With the embedded emulator and unset: generated once into embedded-credentials.json.",
    ),
  CONSOLE_READONLY_PASSWORD: z
    .string()
    .min(12, 'at least 12 characters')
    .optional()
    .describe("Password of the console's read-only account, `reader`: sees every page, changes nothing."),
  CONSOLE_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(720)
    .default(30)
    .describe(
      'A console session unused this long ends (besides ending 12 hours after signing in, and when its password changes).',
    ),
  CONSOLE_BEHIND_TLS: flag('false').describe(
    "The console is reached over https through a TLS proxy even though booksync's listener is on loopback: its cookies are Secure (they always are on a listener that is not loopback, and for a request forwarded as https by a TRUST_PROXY proxy).",
  ),

  EMULATOR_HOST: z.string().min(1).default('127.0.0.1').describe('Address of the embedded emulator.'),
  EMULATOR_PORT: port.default(4010).describe('Port of the embedded emulator.'),
  EMULATOR_ADMIN_TOKEN: z
    .string()
    .min(16, 'at least 16 characters')
    .optional()
    .describe(
      'Admin token of the emulator (creates organizations, moves the sandbox clock); generated when unset.',
    ),

  LEDGER_DB: z.string().min(1).optional().describe('Embedded ledger SQLite file; unused with LEDGER_URL.'),
  LEDGER_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// or postgresql:// url')
    .optional()
    .describe(
      "The ledger (with the accounting targets' index and their OAuth connections) on PostgreSQL, e.g. postgres://booksync:PASSWORD@db:5432/books; the database enforces keys, balance and immutability, for any number of workers. Unset: the SQLite file LEDGER_DB.",
    ),
  BOOKS_TIME_ZONE: z
    .string()
    .default('UTC')
    .transform((name, ctx) => {
      try {
        return checkedTimeZone(name);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^BOOKS_TIME_ZONE: /, '') });
        return z.NEVER;
      }
    })
    .describe(
      "The business's time zone (an IANA name, e.g. America/Los_Angeles): every entry is dated on the business day, in this zone, of the time the service gives, so a sale at 20:00 on 31 January in California is January's. Set it before the first entry is booked: booked entries keep their dates.",
    ),
  PERIOD_CLOSE_CLOSES_BOOKS: flag('false').describe(
    "The monthly period-close Schedule closes the books through the month's last day when its certificate passes (as `booksync books close` would); off, it only makes the certificate.",
  ),
  DEMO_CLOSES_MONTH: flag('true').describe(
    "The demo (`booksync start` on a fresh folder, `booksync demo`) ends its day's month on the emulator's clock and closes it: reconciliation, the certificate, the books closed through the month's last day (never forced). Off, the demo runs the day only.",
  ),
  EXTERNAL_PAYMENTS_ACCOUNT: z
    .enum(['checks-to-deposit', 'operating-bank'])
    .default('checks-to-deposit')
    .describe('Where external payments are booked until cleared.'),
  PAYOUT_BANK_ACCOUNTS: csv
    .pipe(
      z.array(z.string()).superRefine((items, ctx) => {
        for (const item of items)
          if (!/^\d{4}$/.test(item))
            ctx.addIssue({
              code: 'custom',
              message: `${JSON.stringify(item)} is not the last four digits of a bank account (4 digits each, comma-separated, e.g. 4321,8765)`,
            });
      }),
    )
    .optional()
    .describe(
      'The bank accounts payouts land in apart from the operating bank, by their last four digits, comma-separated (e.g. 4321): a payout whose disbursement names one (its accountNumberLastFour) is received in Payout Bank (role PayoutBank), every other payout in Operating Bank. Unset or empty: every payout goes to Operating Bank. Set it before the first payout to that account is booked: a payout booked before a change keeps its entries (a re-sync of it is a conflict) until `booksync resync` books it again.',
    ),
  RETURNED_CHECK_FEE_CENTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'Fee charged once per returned check deposit, as a debit memo on the links it was applied to (0: none).',
    ),
  RETURNED_CHECK_FEE_SPLIT: z
    .enum(['first-link', 'pro-rata'])
    .default('first-link')
    .describe(
      'How the returned-check fee falls on the links a check was applied to: all on the first link, or in proportion to what was applied to each (whole cents, adding up to the fee).',
    ),
  ACCOUNTING_TARGET: csv
    .pipe(z.array(z.enum(['tryton', 'quickbooks', 'xero', 'ledger-mirror'])))
    .optional()
    .describe(
      'Accounting software the books are pushed to, comma-separated: tryton, quickbooks, xero, ledger-mirror. Unset: the embedded ledger only.',
    ),
  TARGET_ACCOUNTS: z
    .string()
    .optional()
    .describe(
      "Account mapping, Role=code pairs over booksync's defaults (OperatingBank=1010,ProcessorClearing=1020,...); checked against the target at start-up.",
    ),
  VENDOR_EXPENSE_ACCOUNTS: z
    .string()
    .optional()
    .describe(
      "Vendors whose bills are expensed to an account of their own at the target instead of BillExpenses', vendorId=code pairs (ven_rent=6200,ven_aws=6310); each account checked against the target at start-up. The ledger keeps every bill on Bill Expenses.",
    ),
  TARGET_MATCHING: z
    .enum(['create', 'match-existing'])
    .default('match-existing')
    .describe(
      'Customers, vendors and invoices at the target: create them, or match existing ones by reference (invoice number = link name, party by name or email) and create what is missing.',
    ),
  ...targetSettings,
  LEDGER_MIRROR_DB: z.string().min(1).optional().describe('SQLite file of the ledger-mirror target.'),
  RECONCILE_INTERVAL: duration.default('1h').describe('Interval of the reconciliation Schedule.'),
  PUSH_POLL_INTERVAL: duration
    .default('1m')
    .describe(
      "How long an accounting target's push waits for a ledger write's wake-up before it looks for work by itself (a wake-up lost in a crash); given to the push workflow when it starts.",
    ),
  PUSH_RETRY_MAX_INTERVAL: duration
    .default('1m')
    .describe(
      'The longest wait between two push attempts while the accounting software is unreachable; given to the push workflow when it starts.',
    ),
  PUSH_HEARTBEAT_TIMEOUT: duration
    .default('1m')
    .describe(
      'How long Temporal waits without a sign of life from a push attempt before it starts another (a worker killed mid-push is resumed that much later); given to the push workflow when it starts.',
    ),
  PUSH_IN_FLIGHT_WAIT_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(90)
    .describe(
      "How long a push attempt waits for an earlier attempt's write that may still be on its way to the accounting software (that attempt timed out while running, or its worker was killed) before it looks the entry up there, so the two never both create it; an earlier attempt that ends sooner ends the wait. At least the targets' request timeout (60 s).",
    ),
  CHECK_DELIVERY_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe('A bill payment check not delivered this many days after it was sent is flagged.'),
  CHECK_CASHING_WINDOW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .default(90)
    .describe('A delivered bill payment check not cashed within this many days is flagged.'),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .min(0)
    .default(250)
    .describe(
      "Workflows a worker keeps in memory (about 200 KiB of RSS each); the others wait on the server, and one woken after eviction is replayed first (about twice the worker CPU of its close, docs/benchmarks.md). The SDK's own default grows with V8's heap limit (2,310 workflows under node's 4 GiB). A worker holding thousands of ACH windows also wants NODE_OPTIONS='--max-old-space-size=192 --max-semi-space-size=2', MALLOC_ARENA_MAX=2 and glibc's trim and mmap thresholds fixed at 128 KiB (MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=131072; the image sets the three malloc ones): with them 10,000 waiting windows peaked at 261 MiB RSS on Node 24, with only the arenas bounded 308 MiB, with none 400 MiB or more.",
    ),
  METRICS_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Address of the worker health and metrics endpoint (0.0.0.0 in a container).'),
  METRICS_PORT: port.default(9464).describe('Port of the worker health and Prometheus metrics endpoint.'),
  TEMPORAL_SDK_METRICS_PORT: port
    .optional()
    .describe(
      "Port of the Temporal SDK's own Prometheus metrics (temporal_* : task slots, polls, schedule-to-start latency), on METRICS_HOST; unset: not exported.",
    ),
});

export type Settings = z.infer<typeof settingsSchema> & { ledgerDb: string };

/** A data file's setting, or its default in BOOKSYNC_DATA_DIR (dataDirDefaults). */
export function dataFile(
  settings: Pick<Settings, 'BOOKSYNC_DATA_DIR'> & Partial<Record<keyof typeof dataDirDefaults, string>>,
  name: keyof typeof dataDirDefaults,
): string {
  return settings[name] ?? path.join(settings.BOOKSYNC_DATA_DIR, dataDirDefaults[name]);
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** Validates the environment; the first problem becomes one line naming the variable and what it expects. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  let input: Record<string, string>;
  try {
    input = withSecretFiles(env, Object.keys(settingsSchema.shape));
  } catch (error) {
    throw new SettingsError((error as Error).message);
  }
  const parsed = settingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const received = input[variable];
    const shown =
      variable === 'LEDGER_URL' ||
      variable.includes('KEY') ||
      variable.includes('SECRET') ||
      variable.includes('TOKEN') ||
      variable.includes('PASSWORD')
        ? '(hidden)'
        : JSON.stringify(received);
    throw new SettingsError(`${variable}: ${issue.message}${received === undefined ? '' : `, got ${shown}`}`);
  }
  const settings = parsed.data;
  if (settings.SERVICE_BASE_URL && !settings.SERVICE_API_KEY) {
    throw new SettingsError('SERVICE_API_KEY: required when SERVICE_BASE_URL is set');
  }
  if ((settings.TEMPORAL_TLS_CERT_PATH === undefined) !== (settings.TEMPORAL_TLS_KEY_PATH === undefined)) {
    throw new SettingsError(
      'TEMPORAL_TLS_KEY_PATH: TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together',
    );
  }
  if (settings.ACCOUNTING_TARGET?.includes('tryton')) {
    for (const name of ['TRYTON_URL', 'TRYTON_DATABASE', 'TRYTON_PASSWORD'] as const) {
      if (!settings[name])
        throw new SettingsError(`${name}: required when ACCOUNTING_TARGET includes tryton`);
    }
  }
  if (settings.ACCOUNTING_TARGET?.includes('quickbooks')) {
    for (const name of ['QBO_CLIENT_ID', 'QBO_CLIENT_SECRET', 'QBO_TOKEN_KEY'] as const) {
      if (!settings[name])
        throw new SettingsError(`${name}: required when ACCOUNTING_TARGET includes quickbooks`);
    }
  }
  if (settings.ACCOUNTING_TARGET?.includes('xero')) {
    for (const name of ['XERO_CLIENT_ID', 'XERO_CLIENT_SECRET', 'XERO_TOKEN_KEY'] as const) {
      if (!settings[name]) throw new SettingsError(`${name}: required when ACCOUNTING_TARGET includes xero`);
    }
  }
  return { ...settings, ledgerDb: dataFile(settings, 'LEDGER_DB') };
}
