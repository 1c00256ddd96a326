import type { Client } from '@temporalio/client';
import { resyncWorkflowType } from '../../flows/resync/contract.js';
import type { EntryLine } from '../../ledger/entry.js';
import { formatUsd } from '../../ledger/money.js';
import type { ResyncDiff } from '../../resync/plan.js';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag, timeoutSecondsOf } from '../flags.js';
import { runWorkflow, withTemporalClient } from '../temporal-client.js';

export interface ResyncArgs {
  apply: boolean;
  since: string | null;
  json: boolean;
  timeoutSeconds: number;
}

/** What the resync workflow answers (src/flows/resync/activities-contract.ts, restated: the CLI imports no activity). */
export interface ResyncAnswer {
  applied: boolean;
  diff: ResyncDiff;
  reversed: string[];
  posted: string[];
}

export function parseResyncArgs(args: string[]): ResyncArgs {
  let apply: boolean | undefined;
  let since: string | null = null;
  let json = false;
  let timeoutSeconds = 600;
  eachFlag('resync', args, (flag, value) => {
    if (flag === '--dry-run' || flag === '--apply') {
      const wanted = flag === '--apply';
      if (apply !== undefined && apply !== wanted)
        throw new CommandError('resync: give --dry-run or --apply, not both');
      apply = wanted;
    } else if (flag === '--since') {
      since = value();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since))) {
        throw new CommandError(`resync: --since is YYYY-MM-DD, got ${since}`);
      }
    } else if (flag === '--json') json = true;
    else if (flag === '--timeout') {
      timeoutSeconds = timeoutSecondsOf('resync', value());
    } else throw new CommandError(`resync: unknown argument ${flag}`);
  });
  if (apply === undefined) throw new CommandError('resync: give --dry-run or --apply');
  return { apply, since, json, timeoutSeconds };
}

/** Runs the resync workflow (`resync-dry-run-{since|all}` or `resync-apply-{since|all}`) and returns its answer. */
export async function requestResync(
  client: Client,
  options: { apply: boolean; since: string | null; taskQueue: string; timeoutSeconds?: number },
): Promise<ResyncAnswer> {
  const workflowId = workflowIdFor(
    resyncWorkflowType,
    `${options.apply ? 'apply' : 'dry-run'}-${options.since ?? 'all'}`,
  );
  return runWorkflow<ResyncAnswer>(client, 'resync', {
    type: resyncWorkflowType,
    workflowId,
    args: [{ since: options.since, apply: options.apply }],
    taskQueue: options.taskQueue,
    timeoutSeconds: options.timeoutSeconds ?? 600,
  });
}

const linesText = (lines: readonly EntryLine[]) =>
  lines.map((l) => `${l.account} ${formatUsd(l.amountCents)}`).join(', ');

export function resyncLines(answer: ResyncAnswer): string[] {
  const { diff } = answer;
  const out: string[] = [];
  const scope = diff.since ? `entries dated ${diff.since} or later` : 'every entry';
  out.push(
    `resync ${answer.applied ? 'applied' : 'dry run'} (${scope}): ${diff.toReverse.length} to reverse, ${diff.toPost.length} to post, ${diff.unchanged} unchanged`,
  );
  for (const r of diff.toReverse)
    out.push(`- reverse ${r.key} (${r.date}): ${linesText(r.lines)}; ${r.reason}`);
  for (const p of diff.toPost) out.push(`+ post ${p.key} (${p.date}): ${linesText(p.lines)}`);
  for (const u of diff.unmappable) out.push(`! ${u.object}: ${u.error}`);
  if (answer.applied)
    out.push(`written: ${answer.reversed.length} reversals, ${answer.posted.length} entries`);
  else if (diff.toReverse.length + diff.toPost.length > 0) out.push('run with --apply to book it');
  else out.push('the books are what the current mapping gives: nothing to do');
  return out;
}

export const resyncCommand: Command = {
  summary:
    're-sync with a diff: what the books would be under the current mapping and settings, and applying it',
  usesTemporal: true,
  usage: `booksync resync --dry-run [--since YYYY-MM-DD] [--json] [--timeout SECONDS]
booksync resync --apply [--since YYYY-MM-DD] [--json] [--timeout SECONDS]

Runs the resync workflow: its activity fetches the service's objects again (links, payments, disbursements,
check deposits; the bills and bill payments the books name), maps them with the current code and settings
(EXTERNAL_PAYMENTS_ACCOUNT...) and compares each object's entries with the books. --dry-run prints the
entry-level difference: the live entries that would be reversed and the entries that would be posted (a
changed entry is both: the old version reversed, the new one booked as {key}#2). --apply books exactly that
difference as reversals and new versions, never editing or deleting; running it again changes nothing.
--since: only entries dated on or after the day. Invoices keep their first date and are not re-mapped.`,
  async run({ args, settings, out }) {
    const parsed = parseResyncArgs(args);
    return withTemporalClient(settings, async (client) => {
      const answer = await requestResync(client, {
        apply: parsed.apply,
        since: parsed.since,
        taskQueue: settings.TEMPORAL_TASK_QUEUE,
        timeoutSeconds: parsed.timeoutSeconds,
      });
      for (const line of parsed.json ? [JSON.stringify(answer, null, 2)] : resyncLines(answer)) out(line);
      return 0;
    });
  },
};
