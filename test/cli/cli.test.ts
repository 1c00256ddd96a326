import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newDeposit, newLink } from '@booksync/emulator/harness';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booksyncCli } from '../support/booksync-cli.js';
import { type CommandApiStack, startCommandApiStack } from '../support/command-api-stack.js';
import type { SyncWorld } from '../support/sync-world.js';
import { eventually } from '../support/wait-for.js';

// `booksync deposit` and `booksync link` as a person runs them: the CLI process against a listening command
// API, a worker with the real activities on a dev server, the emulator over HTTP.

const apiKey = 'cli-test-command-key-0123456789';
let env: TestWorkflowEnvironment;
let world: SyncWorld;
let stack: CommandApiStack;
let baseUrl: string;

beforeAll(async () => {
  stack = await startCommandApiStack({ taskQueuePrefix: 'cli', apiKey });
  ({ env, world, baseUrl } = stack);
});
afterAll(async () => {
  await stack?.close();
});

const booksync = (args: string[], extra: Record<string, string> = {}) =>
  booksyncCli(args, { INGRESS_PUBLIC_URL: baseUrl, COMMAND_API_KEY: apiKey, ...extra });

describe('booksync deposit / link CLI', () => {
  it('records a payment and a memo, applies a deposit, and shows the link', async () => {
    const link = await newLink(world.emulator.api, 5000);
    const deposit = await newDeposit(world.emulator.api, 1000);
    const paid = await booksync([
      'link',
      'record-payment',
      link.id,
      '--amount',
      '1500',
      '--paid-at',
      '2026-03-03',
      '--reference',
      'chk-1001',
    ]);
    expect(paid.stderr).toBe('');
    expect(paid.code).toBe(0);
    // One line: what was done, and what the link still owes.
    expect(paid.stdout.trim()).toMatch(
      new RegExp(`^recorded external payment \\S+ on ${link.id}; ${link.id} owes \\$35\\.00$`),
    );
    const memo = await booksync([
      'link',
      'debit-memo',
      link.id,
      '--amount',
      '250',
      '--description',
      'Late fee',
      '--json',
    ]);
    expect(memo.code).toBe(0);
    expect(JSON.parse(memo.stdout)).toMatchObject({
      workflowId: `payment-link-${link.id}`,
      result: { kind: 'recordDebitMemo', status: 'DONE' },
    });
    const applied = await booksync(['deposit', 'apply', deposit.id, link.id, '--amount', '1000']);
    expect(applied.code).toBe(0);
    expect(applied.stdout.trim()).toMatch(
      new RegExp(`^applied \\$10\\.00 to ${link.id} \\(external payment \\S+\\); ${link.id} still owes \\$`),
    );

    const view = await eventually(async () => {
      const shown = await booksync(['link', 'show', link.id, '--json']);
      if (shown.code !== 0) return undefined;
      const parsed = JSON.parse(shown.stdout);
      return parsed.commands.length === 2 && parsed.debitMemos.length === 1 ? parsed : undefined;
    }, 'the link with both commands');
    expect(
      view.externalPayments.map((p: { externalReferenceId: string | null }) => p.externalReferenceId).sort(),
    ).toEqual(expect.arrayContaining(['chk-1001']));
    const depositView = await eventually(async () => {
      const shown = await booksync(['deposit', 'show', deposit.id, '--json']);
      const parsed = shown.code === 0 ? JSON.parse(shown.stdout) : null;
      return parsed?.applications[0]?.status === 'APPLIED' ? parsed : undefined;
    }, 'the deposit applied');
    expect(depositView.applications[0]).toMatchObject({ amountCents: 1000 });
    expect((await world.emulator.api('GET', `/paymentLink/${link.id}`)).body.completedAmountCents).toBe(2500);
    await env.client.workflow.getHandle(`check-deposit-${deposit.id}`).terminate('test done');
  }, 240_000);

  it('prints the service’s refusal of an apply in one line with exit 1, and a retry with --idempotency-key applies once', async () => {
    const link = await newLink(world.emulator.api, 1000);
    const deposit = await newDeposit(world.emulator.api, 3000);
    const refused = await booksync(['deposit', 'apply', deposit.id, link.id, '--amount', '2000']);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^booksync: command API answered 400: .*(exceed|remain)/i);

    const key = 'cli-retry-key-7f3a';
    const first = await booksync([
      'deposit',
      'apply',
      deposit.id,
      link.id,
      '--amount',
      '600',
      '--idempotency-key',
      key,
    ]);
    const retried = await booksync([
      'deposit',
      'apply',
      deposit.id,
      link.id,
      '--amount',
      '600',
      '--idempotency-key',
      key,
    ]);
    expect([first.code, retried.code]).toEqual([0, 0]);
    expect(retried.stdout).toBe(first.stdout);
    expect(first.stdout.trim()).toMatch(/^applied \$6\.00 to /);
    const fetched = (await world.emulator.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body;
    expect(fetched.applications).toHaveLength(1);
    expect(fetched.unappliedAmountCents).toBe(2400);
  });

  it('refuses bad arguments with one clear line and exit 1, before any request', async () => {
    for (const [args, message] of [
      [['link', 'record-payment', 'pl_1', '--amount', '-5', '--paid-at', '2026-03-03'], /--amount/],
      [['link', 'record-payment', 'pl_1', '--amount', '10.5', '--paid-at', '2026-03-03'], /--amount/],
      [['link', 'record-payment', 'pl_1', '--amount', '100'], /--paid-at: required/],
      [['link', 'debit-memo', 'pl_1', '--amount', '100'], /--description: required/],
      [['deposit', 'apply', 'cd_1'], /paymentLinkId: required/],
      [['link', 'frobnicate', 'pl_1'], /unknown subcommand/],
    ] as const) {
      const run = await booksync([...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')[0]).toMatch(/^booksync: /);
    }
    const wrongKey = await booksync(['link', 'show', 'pl_1'], {
      COMMAND_API_KEY: 'not-the-right-key-at-all',
    });
    expect(wrongKey).toMatchObject({ code: 1 });
    expect(wrongKey.stderr.trim()).toBe(
      'booksync: command API answered 401: unknown bearer key (unauthorized)',
    );
  });

  it('prints its version, and the ledger as JSON with --json', async () => {
    const version = await booksync(['--version']);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect([version.code, version.stdout.trim()]).toEqual([0, `booksync ${pkg.version}`]);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'booksync-cli-json-'));
    try {
      const trial = await booksync(['ledger', 'trial-balance', '--json'], { BOOKSYNC_DATA_DIR: dataDir });
      expect(trial.code).toBe(0);
      expect(JSON.parse(trial.stdout)).toMatchObject({ balanced: true });
      const receivables = await booksync(['ledger', 'receivables', '--json'], { BOOKSYNC_DATA_DIR: dataDir });
      expect(JSON.parse(receivables.stdout)).toEqual({ receivables: [] });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('prints usage for --help', async () => {
    for (const command of ['deposit', 'link']) {
      const help = await booksync([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`booksync ${command} <subcommand>`);
    }
  }, 120_000);
});
