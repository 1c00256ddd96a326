import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkReplayRule,
  entryFor,
  gitUnavailable,
  readManifest,
  recordCommand,
  skipVariable,
  writeManifest,
} from '../../support/replay-rule.js';
import { GitHistory, typeFingerprint, workingTree } from '../../support/workflow-fingerprint.js';

// Replay as a rule: a workflow type whose code changed has a history recorded from its previous
// code (test/support/replay-rule.ts says what "previous" is). Seconds, no Temporal server: fingerprints are
// read from git objects; test/flows/replay/replay.test.ts replays the histories.

const repository = fileURLToPath(new URL('../../..', import.meta.url));
const skipped = process.env[skipVariable] === '1';

describe('the replay rule on this repository', () => {
  it.skipIf(skipped)('every changed workflow type has a history recorded from its previous code', () => {
    const unavailable = gitUnavailable(repository);
    expect(unavailable, `${unavailable}; ${skipVariable}=1 skips the replay rule`).toBeNull();
    const { problems } = checkReplayRule(repository);
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

// A small repository of the same layout, to watch the rule fail and pass.
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function git(root: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

function write(root: string, file: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}

function commit(root: string, message: string): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD');
}

function history(type: string): string {
  return JSON.stringify({
    events: [{ workflowExecutionStartedEventAttributes: { workflowType: { name: type } } }],
  });
}

/** alpha imports a workflow-safe value and an activity's types; beta imports nothing. */
function sampleRepository(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'booksync-replay-rule-'));
  dirs.push(root);
  git(root, 'init', '-q');
  write(
    root,
    'src/flows/workflows.ts',
    "export { alpha } from './alpha/workflow.js';\nexport { beta } from './beta/workflow.js';\n",
  );
  write(
    root,
    'src/flows/alpha/workflow.ts',
    "import { retry } from '../../workflow-safe/retry.js';\nimport type { Input } from './activities-contract.js';\nexport async function alpha(input: Input) {\n  return retry + input.n;\n}\n",
  );
  write(root, 'src/flows/beta/workflow.ts', 'export async function beta() {}\n');
  write(root, 'src/workflow-safe/retry.ts', 'export const retry = 1;\n');
  write(root, 'src/flows/alpha/activities-contract.ts', 'export interface Input { n: number }\n');
  write(root, 'test/fixtures/histories/alpha-day.json', history('alpha'));
  write(root, 'test/fixtures/histories/beta-day.json', history('beta'));
  const first = commit(root, 'alpha and beta');
  const gitHistory = new GitHistory(root);
  writeManifest(root, {
    'alpha-day.json': entryFor(gitHistory, 'alpha-day.json', first),
    'beta-day.json': entryFor(gitHistory, 'beta-day.json', first),
  });
  commit(root, 'manifest');
  return root;
}

/** Adds a history of `type` recorded from `revision`'s code, as the recorder script does. */
function recordFrom(root: string, type: string, revision: string, file: string): void {
  write(root, `test/fixtures/histories/${file}`, history(type));
  const manifest = readManifest(root);
  manifest[file] = entryFor(new GitHistory(root), file, revision);
  writeManifest(root, manifest);
}

describe('the replay rule', () => {
  it('holds when every type has a history recorded from its code', () => {
    expect(checkReplayRule(sampleRepository()).problems).toEqual([]);
  });

  it('holds after one change: the history recorded before it is from the previous code', () => {
    const root = sampleRepository();
    write(
      root,
      'src/flows/alpha/workflow.ts',
      "import { retry } from '../../workflow-safe/retry.js';\nexport async function alpha() {\n  return retry + 2;\n}\n",
    );
    commit(root, 'alpha changes');
    expect(checkReplayRule(root).problems).toEqual([]);
  });

  it('fails on a second change with no history from the code before it, naming what to run', () => {
    const root = sampleRepository();
    write(
      root,
      'src/flows/alpha/workflow.ts',
      "import { retry } from '../../workflow-safe/retry.js';\nexport async function alpha() {\n  return retry + 2;\n}\n",
    );
    const before = commit(root, 'alpha changes');
    write(
      root,
      'src/flows/alpha/workflow.ts',
      "import { retry } from '../../workflow-safe/retry.js';\nexport async function alpha() {\n  return retry + 3;\n}\n",
    );
    commit(root, 'alpha changes again');

    const { problems } = checkReplayRule(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`alpha's workflow code changed`);
    expect(problems[0]).toContain(`Record one from commit ${before.slice(0, 10)}: ${recordCommand} alpha`);

    recordFrom(root, 'alpha', before, 'alpha-day-from-before.json');
    commit(root, 'a history from the code before');
    expect(checkReplayRule(root).problems).toEqual([]);
  });

  it("counts a change to a workflow-safe module the type imports, not an import of types or another type's code", () => {
    const root = sampleRepository();
    const fingerprintsNow = () => {
      const tree = workingTree(root);
      return { alpha: typeFingerprint(tree, 'alpha'), beta: typeFingerprint(tree, 'beta') };
    };
    const start = fingerprintsNow();
    write(
      root,
      'src/flows/alpha/activities-contract.ts',
      'export interface Input { n: number; m?: number }\n',
    );
    expect(fingerprintsNow()).toEqual(start);
    write(root, 'src/workflow-safe/retry.ts', 'export const retry = 2;\n');
    const afterSafe = fingerprintsNow();
    expect(afterSafe.alpha).not.toBe(start.alpha);
    expect(afterSafe.beta).toBe(start.beta);
    // Uncommitted: alpha's previous version is HEAD's code; beta has none (never committed otherwise).
    const { types } = checkReplayRule(root);
    const head = git(root, 'rev-parse', 'HEAD');
    expect(types.find((t) => t.type === 'alpha')?.previous).toEqual({
      commit: head,
      fingerprint: start.alpha,
    });
    expect(types.find((t) => t.type === 'beta')?.previous).toBeNull();
  });

  it('does not take a history recorded from uncommitted code as recorded from the current code', () => {
    const root = sampleRepository();
    write(root, 'src/flows/beta/workflow.ts', 'export async function beta() {\n  return 1;\n}\n');
    // Re-recorded on the change itself, and the manifest claims it came from HEAD: refused.
    const manifest = readManifest(root);
    manifest['beta-day.json']!.fingerprint = typeFingerprint(workingTree(root), 'beta')!;
    manifest['beta-day.json']!.commit = git(root, 'rev-parse', 'HEAD');
    writeManifest(root, manifest);
    commit(root, 'beta changes, re-recorded on itself');
    const problems = checkReplayRule(root).problems;
    expect(problems.some((p) => p.includes('beta-day.json says fingerprint'))).toBe(true);
  });

  it('prefers the newest release tag whose code differs over the last commit', () => {
    const root = sampleRepository();
    git(root, 'tag', 'v1.0.0');
    write(root, 'src/flows/beta/workflow.ts', 'export async function beta() {\n  return 1;\n}\n');
    commit(root, 'beta, unreleased');
    // The release's history goes; one from the unreleased commit comes.
    rmSync(path.join(root, 'test/fixtures/histories/beta-day.json'));
    const manifest = readManifest(root);
    delete manifest['beta-day.json'];
    writeManifest(root, manifest);
    recordFrom(root, 'beta', 'HEAD', 'beta-day-unreleased.json');
    write(root, 'src/flows/beta/workflow.ts', 'export async function beta() {\n  return 2;\n}\n');
    commit(root, 'beta again');

    // Without the tag the unreleased commit is the previous version, and its history suffices.
    git(root, 'tag', '-d', 'v1.0.0');
    expect(checkReplayRule(root).problems).toEqual([]);
    git(root, 'tag', 'v1.0.0', 'HEAD~1~1');
    const problems = checkReplayRule(root).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('Record one from release v1.0.0');
  });

  it('lists a history with no manifest entry', () => {
    const root = sampleRepository();
    write(root, 'test/fixtures/histories/alpha-night.json', history('alpha'));
    const problems = checkReplayRule(root).problems;
    expect(problems.some((p) => p.includes('alpha-night.json has no entry') && p.includes('--add'))).toBe(
      true,
    );
  });

  it('refuses a history re-recorded over a file its manifest entry was written for', () => {
    const root = sampleRepository();
    write(root, 'test/fixtures/histories/beta-day.json', `${history('beta')}\n`);
    const problems = checkReplayRule(root).problems;
    expect(problems[0]).toContain('beta-day.json is not the file its manifest entry was written for');
    // And it no longer counts as beta's history.
    expect(problems[1]).toContain('beta has no recorded history');
    expect(problems).toHaveLength(2);
  });
});

describe('without git history', () => {
  it('says the rule cannot be checked in a folder without git', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'booksync-replay-rule-nogit-'));
    dirs.push(root);
    expect(gitUnavailable(root)).toContain('no git history');
  });

  it('says the rule cannot be checked in a shallow clone', () => {
    const source = sampleRepository();
    const parent = mkdtempSync(path.join(tmpdir(), 'booksync-replay-rule-shallow-'));
    dirs.push(parent);
    git(parent, 'clone', '-q', '--depth', '1', `file://${source}`, 'clone');
    expect(gitUnavailable(path.join(parent, 'clone'))).toContain('shallow clone');
  });
});
