import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { accountingTargetWorkflowId, retryEntriesSignal } from '../../flows/push/contract.js';
import type { TargetIndexStore, TargetSummary } from '../../flows/push/target-index.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { hardExpiryWarnings } from '../../runtime/targets/oauth-connection-sources.js';
import { type Command, CommandError } from '../command.js';
import { connectCliClient } from '../temporal-client.js';
import { connectTarget, connectUsage } from './targets-connect.js';
import { setupTarget, setupUsage } from './targets-setup.js';

function summaryLines(summary: TargetSummary): string[] {
  return [
    `${summary.target}: ${summary.pushed} pushed, ${summary.pending} pending${summary.inFlight > 0 ? ` (${summary.inFlight} in flight when a push stopped: looked up at the target before they are created)` : ''}, ${summary.failed} failed, ${summary.skipped} skipped`,
    ...summary.failures.map((f) => `  FAILED ${f.key} (${f.attempts} attempts, ${f.updatedAt}): ${f.reason}`),
  ];
}

/**
 * Queues FAILED entries of a target for another push (all of them, or the given keys, each of which must have
 * been pushed before): the retryEntries signal to the target's push workflow. Returns the keys queued. The
 * one path of `booksync targets retry` and the console's Retry buttons.
 */
export async function queueTargetRetry(
  client: Client,
  index: TargetIndexStore,
  target: string,
  keys: 'failed' | readonly string[],
): Promise<string[]> {
  const chosen = keys === 'failed' ? (await index.summary(target)).failures.map((f) => f.key) : [...keys];
  for (const key of chosen) {
    if (!(await index.get(target, key))) throw new CommandError(`${key} was never pushed to ${target}`);
  }
  await client.workflow
    .getHandle(accountingTargetWorkflowId(target))
    .signal(retryEntriesSignal, { keys: keys === 'failed' ? 'failed' : chosen });
  return chosen;
}

export const targetsCommand: Command = {
  summary:
    'accounting targets: what was pushed, what failed and why; push failed entries again; connect and set up a company',
  usesTemporal: true,
  usage: `booksync targets status [--json]
booksync targets retry <entryKey>... | --failed [--target NAME] [--wait SECONDS]
${connectUsage}

${setupUsage}

status reads the target index in the ledger's store (LEDGER_URL, or else LEDGER_DB) for every target of
ACCOUNTING_TARGET, and warns when a connected company's refresh token hard-expires within 14 days (QuickBooks
refuses it then however often it is used): run booksync targets connect <target> before that day.
retry queues FAILED entries again through the target's push workflow (after you fixed the cause, e.g. the
missing account), then waits up to --wait seconds (default 30) and prints what became of them; exit 1 when
any is still FAILED.`,
  async run({ args, settings, out, logger }) {
    const [what, ...rest] = args;
    if (what === 'connect') return connectTarget({ args: rest, settings, out, logger });
    if (what === 'setup') return setupTarget({ args: rest, settings, out, logger });
    const targets = settings.ACCOUNTING_TARGET ?? [];
    if (targets.length === 0) throw new CommandError('no accounting target: set ACCOUNTING_TARGET');
    const store = await openLedgerStore(settings);
    try {
      const index = store.targetIndex;
      if (what === 'status' || what === undefined) {
        const [summaries, warnings] = await Promise.all([
          Promise.all(targets.map((t) => index.summary(t))),
          hardExpiryWarnings(settings),
        ]);
        if (rest.includes('--json')) out(JSON.stringify({ targets: summaries, warnings }, null, 2));
        else {
          for (const s of summaries) for (const line of summaryLines(s)) out(line);
          for (const w of warnings) out(`WARNING ${w.warning}`);
        }
        return summaries.some((s) => s.failed > 0) ? 1 : 0;
      }
      if (what !== 'retry')
        throw new CommandError(`unknown targets command '${what}': see 'booksync targets --help'`);
      const target = option(rest, '--target') ?? (targets.length === 1 ? targets[0] : undefined);
      if (!target || !targets.includes(target as never)) {
        throw new CommandError(`--target must name one of ${targets.join(', ')}`);
      }
      const waitSeconds = Number(option(rest, '--wait') ?? 30);
      const keys = rest.filter(
        (a, i) => !a.startsWith('--') && !['--target', '--wait'].includes(rest[i - 1] ?? ''),
      );
      const failedOnly = rest.includes('--failed');
      if (!failedOnly && keys.length === 0) throw new CommandError('name entry keys, or --failed');
      if (!failedOnly) {
        for (const key of keys) {
          if (!(await index.get(target, key))) throw new CommandError(`${key} was never pushed to ${target}`);
        }
      }

      const { client, connection } = await connectCliClient(settings);
      let chosen: string[];
      try {
        chosen = await queueTargetRetry(client, index, target, failedOnly ? 'failed' : keys);
      } finally {
        await connection.close();
      }
      out(`queued ${chosen.length} entries of ${target} for another push`);
      // Done when each is PUSHED, or FAILED again by a newer attempt than the one seen before the signal.
      const states = () => Promise.all(chosen.map((key) => index.get(target, key)));
      const before = new Map((await states()).map((s, i) => [chosen[i], s?.updatedAt]));
      const settled = async () =>
        (await states()).filter(
          (s) => s?.status === 'PUSHED' || (s?.status === 'FAILED' && s.updatedAt !== before.get(s.key)),
        );
      const deadline = Date.now() + waitSeconds * 1000;
      while (Date.now() < deadline && (await settled()).length < chosen.length) await sleep(500);
      const final = await states();
      for (const s of final) out(`${s?.key}: ${s?.status}${s?.status === 'FAILED' ? ` (${s.reason})` : ''}`);
      return final.every((s) => s?.status === 'PUSHED') ? 0 : 1;
    } finally {
      await store.close();
    }
  },
};

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}
