import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type CodeTree,
  GitHistory,
  typeFingerprint,
  workflowCodeDirs,
  workflowModules,
  workingTree,
} from './workflow-fingerprint.js';

// Replay as a rule. Workflows run for 60 to 90 days, so a workflow type's code must replay the
// histories its previous code recorded. The rule, checked in seconds without a Temporal server:
//
//   every workflow type the worker registers has, in the histories' manifest, a history recorded from its
//   current code, or one recorded from its previous version.
//
// "Previous version": the code of the newest release tag (v*) whose fingerprint of the type differs from
// today's; with no such tag (this repository has none), the newest commit at which it differed. A type with
// no previous version (new, unchanged since it was added) needs any history. Each manifest entry names the
// commit it was recorded from, and its fingerprint must be the type's at that commit: a history recorded
// from uncommitted code (a change re-recorded on itself) does not count as "recorded from the current code".
// test/flows/replay/replay.test.ts then replays every history on today's code.

export const historiesFolder = 'test/fixtures/histories';
export const manifestFile = 'test/fixtures/histories-manifest.json';
export const recordCommand = 'npx tsx scripts/record-previous-histories.ts';
/** Set to 1 to skip the rule where git history cannot be had (a shallow clone, an export without .git). */
export const skipVariable = 'BOOKSYNC_SKIP_REPLAY_RULE';

export interface ManifestEntry {
  workflowType: string;
  /** The type's code fingerprint at `commit` (test/support/workflow-fingerprint.ts). */
  fingerprint: string;
  /** The commit whose workflow code recorded the history. */
  commit: string;
  /** The history file's own content hash: a file re-recorded over (on other code) no longer matches. */
  historyHash: string;
  /** How it was recorded, for a reader. */
  note?: string;
}

export type Manifest = Record<string, ManifestEntry>;

export function readManifest(root: string): Manifest {
  const file = path.join(root, manifestFile);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).histories as Manifest) : {};
}

export function writeManifest(root: string, manifest: Manifest): void {
  const sorted = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b)));
  const text = {
    about:
      'The code each recorded history in test/fixtures/histories came from: workflow type, fingerprint of its code (test/support/workflow-fingerprint.ts) and commit. Checked by test/flows/replay/replay-rule.test.ts; written by scripts/record-previous-histories.ts.',
    histories: sorted,
  };
  writeFileSync(path.join(root, manifestFile), `${JSON.stringify(text, null, 2)}\n`);
}

/** The workflow type a history's first event started. */
export function historyType(root: string, file: string): string {
  const history = JSON.parse(readFileSync(path.join(root, historiesFolder, file), 'utf8')) as {
    events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
  };
  return history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
}

/** A history file's content hash (16 hex digits of SHA-256). */
export function historyHash(root: string, file: string): string {
  const content = readFileSync(path.join(root, historiesFolder, file));
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}

/** The manifest entry of a history in the folder recorded from `revision`'s code. */
export function entryFor(git: GitHistory, file: string, revision: string, note?: string): ManifestEntry {
  const commit = git.git('rev-parse', `${revision}^{commit}`).trim();
  const workflowType = historyType(git.root, file);
  const fingerprint = typeFingerprint(git.at(commit), workflowType);
  if (!fingerprint) throw new Error(`${file}: ${workflowType} is not a workflow type at ${commit}`);
  return {
    workflowType,
    fingerprint,
    commit,
    historyHash: historyHash(git.root, file),
    ...(note ? { note } : {}),
  };
}

/** Why the rule cannot be checked here (no git, a shallow clone), or null when it can. */
export function gitUnavailable(root: string): string | null {
  try {
    const shallow = execFileSync('git', ['rev-parse', '--is-shallow-repository'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    if (shallow === 'true') {
      return 'this is a shallow clone: the replay rule reads the workflow code of earlier commits (git fetch --unshallow)';
    }
    return null;
  } catch {
    return `no git history at ${root}: the replay rule reads the workflow code of earlier commits (clone the repository with git)`;
  }
}

export interface PreviousVersion {
  /** The commit or tag the previous code is read from (a full commit id). */
  commit: string;
  /** The tag, when the previous version is a release. */
  tag?: string;
  /** The type's fingerprint there; null when the type did not exist there (a new type). */
  fingerprint: string | null;
}

/**
 * The type's previous version: the newest v* tag whose fingerprint differs from `current`, else the newest
 * commit (from HEAD back) whose fingerprint differs; null when every commit has today's code (never
 * committed differently).
 */
export function previousVersion(git: GitHistory, type: string, current: string): PreviousVersion | null {
  const tags = git.git('tag', '--list', 'v*', '--sort=-creatordate').split('\n').filter(Boolean);
  for (const tag of tags) {
    const fingerprint = typeFingerprint(git.at(`${tag}^{commit}`), type);
    if (fingerprint !== current) {
      return { commit: git.git('rev-parse', `${tag}^{commit}`).trim(), tag, fingerprint };
    }
  }
  const commits = git
    .git('log', '--format=%H', 'HEAD', '--', ...workflowCodeDirs)
    .split('\n')
    .filter(Boolean);
  // The newest commit with the previous code is the parent of the commit that changed it (or HEAD, when
  // the change is not committed yet): the recorder there is the closest to today's.
  let newer: string | null = null;
  for (const commit of commits) {
    const fingerprint = typeFingerprint(git.at(commit), type);
    if (fingerprint === current) {
      newer = commit;
      continue;
    }
    const parent = git.git('rev-parse', newer ? `${newer}^` : 'HEAD').trim();
    const atParent = typeFingerprint(git.at(parent), type);
    return atParent !== current ? { commit: parent, fingerprint: atParent } : { commit, fingerprint };
  }
  return null;
}

export interface RuleResult {
  /** One line a problem, each saying what to do; empty when the rule holds. */
  problems: string[];
  /** Per type: today's fingerprint and the previous version asked for (for the recorder). */
  types: { type: string; fingerprint: string; previous: PreviousVersion | null; satisfied: boolean }[];
}

/** Checks the rule over the repository at `root` (its working tree, its manifest and its git history). */
export function checkReplayRule(root: string, tree: CodeTree = workingTree(root)): RuleResult {
  const git = new GitHistory(root);
  const manifest = readManifest(root);
  const problems: string[] = [];
  const historiesDir = path.join(root, historiesFolder);
  const files = existsSync(historiesDir) ? readdirSync(historiesDir).filter((f) => f.endsWith('.json')) : [];

  // The manifest tells the truth about each history: present, the same file, of its type, fingerprint of its
  // commit. Only histories whose entry does count for the rule below.
  const trusted = new Set<string>();
  for (const file of files) {
    const before = problems.length;
    const entry = manifest[file];
    if (!entry) {
      problems.push(
        `${historiesFolder}/${file} has no entry in ${manifestFile}: add one with ${recordCommand} --add ${file} <commit it was recorded from>`,
      );
      continue;
    }
    if (entry.historyHash !== historyHash(root, file)) {
      problems.push(
        `${historiesFolder}/${file} is not the file its manifest entry was written for (re-recorded?): give it its own entry with ${recordCommand} --add ${file} <commit it was recorded from>, and record histories from the previous code under new names (${recordCommand})`,
      );
    }
    const type = historyType(root, file);
    if (entry.workflowType !== type) {
      problems.push(`${manifestFile}: ${file} is a ${type} history, the manifest says ${entry.workflowType}`);
    }
    let atCommit: string | null;
    try {
      atCommit = typeFingerprint(git.at(entry.commit), entry.workflowType);
    } catch {
      problems.push(`${manifestFile}: ${file} names commit ${entry.commit}, which this clone does not have`);
      continue;
    }
    if (atCommit !== entry.fingerprint) {
      problems.push(
        `${manifestFile}: ${file} says fingerprint ${entry.fingerprint} at ${entry.commit.slice(0, 10)}, where ${entry.workflowType}'s code has ${atCommit ?? 'no such type'} (recorded from uncommitted code? record from a commit)`,
      );
    }
    if (problems.length === before) trusted.add(file);
  }
  for (const file of Object.keys(manifest)) {
    if (!files.includes(file))
      problems.push(`${manifestFile} lists ${file}, which is not in ${historiesFolder}`);
  }

  const recorded = Object.entries(manifest).filter(([file]) => trusted.has(file));
  const types: RuleResult['types'] = [];
  for (const type of [...workflowModules(tree).keys()].sort()) {
    const fingerprint = typeFingerprint(tree, type)!;
    const ofType = recorded.filter(([, entry]) => entry.workflowType === type);
    const previous = previousVersion(git, type, fingerprint);
    const fromCurrent = ofType.some(([, entry]) => entry.fingerprint === fingerprint);
    const fromPrevious =
      previous?.fingerprint != null && ofType.some(([, entry]) => entry.fingerprint === previous.fingerprint);
    // A type new since its previous version (or never committed otherwise) needs any history of itself.
    const isNew = previous === null || previous.fingerprint === null;
    const satisfied = fromCurrent || fromPrevious || (isNew && ofType.length > 0);
    types.push({ type, fingerprint, previous, satisfied });
    if (satisfied) continue;
    if (isNew) {
      problems.push(
        `${type} has no recorded history: record one (BOOKSYNC_RECORD_HISTORIES=1 npx vitest run test/flows/replay/record-histories.test.ts) and add it with ${recordCommand} --add <file> HEAD after committing`,
      );
      continue;
    }
    const where = previous.tag ? `release ${previous.tag}` : `commit ${previous.commit.slice(0, 10)}`;
    const histories =
      ofType.map(([file, entry]) => `${file} (${entry.commit.slice(0, 10)})`).join(', ') || 'none';
    problems.push(
      `${type}'s workflow code changed (fingerprint ${previous.fingerprint} at ${where}, ${fingerprint} now) and no history recorded from its previous code is in ${manifestFile} (its histories: ${histories}). Record one from ${where}: ${recordCommand} ${type}`,
    );
  }
  return { problems, types };
}
