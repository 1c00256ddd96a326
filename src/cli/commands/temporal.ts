import type { Settings } from '../../config/settings.js';
import { registerSearchAttributes } from '../../runtime/temporal/register-search-attributes.js';
import { connectClient, temporalTarget } from '../../runtime/temporal/temporal-connection.js';
import { payloadKeysFrom } from '../../temporal/payload-codec.js';
import { type PayloadKeyUsage, payloadKeyUsage } from '../../temporal/payload-key-usage.js';
import { booksyncSearchAttributes } from '../../workflow-safe/search-attributes.js';
import { type Command, type CommandContext, CommandError } from '../command.js';
import { eachFlag } from '../flags.js';
import { requireSetting } from '../require-setting.js';

/** One line of a gRPC error: "3 INVALID_ARGUMENT: Namespace x is not found." without its metadata. */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}

export const temporalCommand: Command = {
  summary:
    'prepare a Temporal namespace for booksync (setup); the payload keys its histories still use (payload-keys)',
  usesTemporal: true,
  usage: `booksync temporal setup
booksync temporal payload-keys [--key ID] [--first N]

setup: registers booksync's search attributes (${booksyncSearchAttributes.map((k) => k.name).join(', ')})
in TEMPORAL_NAMESPACE on the Temporal at TEMPORAL_ADDRESS, adding only those missing: safe to run again, and
run by docker compose's one-shot 'setup' service before the workers. Prints what it added, or that all were
there; exit 1 with one line when Temporal cannot be reached or refuses (for example a namespace that does not
exist, or an identity without the right to change the namespace). 'booksync worker' does the same at start.

payload-keys: which payload keys (PAYLOAD_KEYS ids) the histories in TEMPORAL_NAMESPACE still hold payloads
of, on the Temporal at TEMPORAL_ADDRESS (else the embedded dev server): every workflow the namespace keeps,
running AND closed (a closed workflow stays readable in the Web UI and the temporal CLI until the namespace's
retention removes it, and only with its key), each run's history read for its encrypted payloads' key ids.
It decrypts nothing and needs no key. Prints, per key id, how many workflow runs use it (running, closed) and
the first N workflow ids (--first, default 10). With --key ID it exits 1 while any history uses that key
(keep it listed) and 0 when none does (it can be dropped): 'booksync temporal payload-keys --key 2026-01 &&
<drop 2026-01>'. Any other failure exits 1 too. It reads every history: on a busy namespace it takes a while.`,
  async run(context) {
    const [what, ...rest] = context.args;
    if (what === 'setup' && rest.length === 0) return setup(context);
    if (what === 'payload-keys') return payloadKeys(context, rest);
    throw new CommandError(
      `${what ? `unknown temporal command '${[what, ...rest].join(' ')}'` : 'name a temporal command'}: see 'booksync temporal --help'`,
    );
  },
};

async function setup({ settings, out }: CommandContext): Promise<number> {
  const address = requireSetting(settings, 'TEMPORAL_ADDRESS', 'temporal setup');
  const namespace = settings.TEMPORAL_NAMESPACE;
  const { connection } = await connectClient(temporalTarget(settings, address));
  try {
    let added: string[];
    try {
      added = await registerSearchAttributes(connection, namespace);
    } catch (error) {
      throw new CommandError(
        `cannot register booksync's search attributes in namespace '${namespace}' at ${address}: ${oneLine(error)}`,
      );
    }
    const all = booksyncSearchAttributes.length;
    if (added.length === 0) {
      out(
        `all ${all} search attributes of booksync already registered in namespace '${namespace}': nothing to add`,
      );
    } else {
      const types = new Map(booksyncSearchAttributes.map((k) => [k.name, k.type]));
      out(
        `registered ${added.length} of ${all} search attributes in namespace '${namespace}': ${added
          .map((name) => `${name} (${types.get(name)})`)
          .join(', ')}`,
      );
    }
    return 0;
  } finally {
    await connection.close();
  }
}

/** `temporal payload-keys [--key ID] [--first N]`: 1 while --key's key is in a history, else 0. */
async function payloadKeys({ settings, out }: CommandContext, args: string[]): Promise<number> {
  let key: string | undefined;
  let firstN = 10;
  eachFlag('temporal payload-keys', args, (flag, value) => {
    if (flag === '--key') key = value();
    else if (flag === '--first') {
      firstN = Number(value());
      if (!Number.isInteger(firstN) || firstN < 0)
        throw new CommandError('temporal payload-keys: --first takes a whole number of workflow ids');
    } else throw new CommandError(`temporal payload-keys: unknown argument '${flag}' (--key ID, --first N)`);
  });
  const address = settings.TEMPORAL_ADDRESS ?? `127.0.0.1:${settings.TEMPORAL_DEV_PORT}`;
  const namespace = settings.TEMPORAL_NAMESPACE;
  // Only the histories' metadata is read, never a payload: no key is needed (the data converter is unused).
  const withoutKeys = {
    ...settings,
    PAYLOAD_KEYS: undefined,
    PAYLOAD_KEYS_FILE: undefined,
    PAYLOAD_ENCRYPTION_REQUIRED: false,
  };
  const { connection } = await connectClient(temporalTarget(withoutKeys, address));
  let usage: PayloadKeyUsage;
  try {
    usage = await payloadKeyUsage(connection, namespace, { firstN });
  } catch (error) {
    throw new CommandError(
      `cannot read the histories of namespace '${namespace}' at ${address}: ${oneLine(error)}`,
    );
  } finally {
    await connection.close();
  }
  for (const line of usageLines(usage, listedKeys(settings))) out(line);
  if (key === undefined) return 0;
  const used = usage.keys.find((k) => k.keyId === key);
  if (used) {
    out(
      `key ${key} is still used by ${runs(used.runs)} (${used.running} running, ${used.closed} closed): keep it in PAYLOAD_KEYS`,
    );
    return 1;
  }
  out(
    `key ${key}: no workflow history in namespace '${namespace}' uses it; it can be dropped from PAYLOAD_KEYS`,
  );
  return 0;
}

/** What payloadKeys prints: what was read, then each key id with its runs and first workflow ids. */
function usageLines(usage: PayloadKeyUsage, listed: readonly string[] | null): string[] {
  const { read, namespace } = usage;
  const retention =
    usage.retentionSeconds === null
      ? ''
      : `; a closed workflow is kept ${days(usage.retentionSeconds)} (the namespace's retention), and counts until then`;
  const lines = [
    `namespace '${namespace}': ${runs(read.runs)} read (${read.running} running, ${read.closed} closed)${retention}`,
  ];
  if (usage.keys.length === 0) lines.push('  no history holds an encrypted payload');
  for (const k of usage.keys) {
    const state =
      listed === null
        ? ''
        : listed[0] === k.keyId
          ? ', in PAYLOAD_KEYS (encrypts)'
          : listed.includes(k.keyId)
            ? ', in PAYLOAD_KEYS'
            : ', NOT in PAYLOAD_KEYS: these histories cannot be read';
    lines.push(`  key ${k.keyId}: ${runs(k.runs)} (${k.running} running, ${k.closed} closed)${state}`);
    for (const w of k.first) lines.push(`    ${w.workflowId} (${w.status})`);
    if (k.runs > k.first.length) lines.push(`    ... and ${k.runs - k.first.length} more`);
  }
  for (const id of listed ?? []) {
    if (!usage.keys.some((k) => k.keyId === id))
      lines.push(`  key ${id}: in PAYLOAD_KEYS, used by no history`);
  }
  return lines;
}

/** The key ids the settings list (none decrypts anything here); null without keys or when they cannot be read. */
function listedKeys(settings: Settings): string[] | null {
  try {
    return payloadKeysFrom(settings)?.map((k) => k.id) ?? null;
  } catch {
    return null;
  }
}

const runs = (n: number) => `${n} workflow run${n === 1 ? '' : 's'}`;

function days(seconds: number): string {
  const d = seconds / 86_400;
  return Number.isInteger(d) ? `${d} day${d === 1 ? '' : 's'}` : `${Math.round(seconds / 3600)} hours`;
}
