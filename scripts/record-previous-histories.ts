import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkReplayRule,
  entryFor,
  historiesFolder,
  historyType,
  manifestFile,
  readManifest,
  writeManifest,
} from '../test/support/replay-rule.js';
import { GitHistory, typeFingerprint } from '../test/support/workflow-fingerprint.js';

// Records the histories the replay rule asks for (test/flows/replay/replay-rule.test.ts): for each workflow type
// whose code changed since its previous version, the previous version's code is checked out in a temporary
// git worktree (sharing this checkout's node_modules), its own recorder runs there against a real Temporal
// dev server, and the histories of the wanted types are copied here as <name>-from-<commit>.json, with their
// manifest entries (type, fingerprint, commit).
//
//   npx tsx scripts/record-previous-histories.ts [type ...]        what the rule misses (or these types)
//   npx tsx scripts/record-previous-histories.ts --add <file> <commit>   a manifest entry for a history already
//                                                                  in the folder, recorded from <commit>'s code
//   npx tsx scripts/record-previous-histories.ts --backfill        entries for every history without one: the
//                                                                  parent of the commit that last wrote it
//
// Needs the Temporal CLI (npm run temporal:obtain; TEMPORAL_CLI_PATH) for the recording, not for the rest.

const root = fileURLToPath(new URL('..', import.meta.url));
const git = new GitHistory(root);

/** The recorder of each type: the whole-stack recorder, but three types are recorded by their own tests. */
const recorders: Record<string, string> = {
  depositSlip: 'test/command-api/deposit-slips.test.ts',
  periodClose: 'test/close/period-close.test.ts',
  resync: 'test/resync/resync.test.ts',
};
const defaultRecorder = 'test/flows/replay/record-histories.test.ts';
/** Where a commit from before the tests followed the flows' folders keeps the whole-stack recorder. */
const earlierDefaultRecorder = 'test/workflows/record-histories.test.ts';

function addEntry(file: string, revision: string, note: string): void {
  const manifest = readManifest(root);
  const entry = entryFor(git, file, revision, note);
  manifest[file] = entry;
  writeManifest(root, manifest);
  console.log(
    `${manifestFile}: ${file} = ${entry.workflowType} ${entry.fingerprint} at ${entry.commit.slice(0, 10)}`,
  );
}

/**
 * Histories written before the manifest: the commit that last wrote a file recorded it from the code of its
 * parent (the convention of this repository's commits: "recorded from the previous code" beside the change;
 * where the commit did not change that type, parent and commit have the same fingerprint), or from its own
 * code when it added the type.
 */
function backfill(): void {
  const manifest = readManifest(root);
  for (const file of git.git('ls-files', historiesFolder).split('\n').filter(Boolean)) {
    const name = path.basename(file);
    if (!name.endsWith('.json') || manifest[name]) continue;
    const wrote = git.git('log', '-1', '--format=%H', '--', file).trim();
    // A commit that added the workflow type itself recorded from its own code (the parent has no such type).
    if (typeFingerprint(git.at(`${wrote}^`), historyType(root, name)) === null) {
      addEntry(name, wrote, `backfilled: ${wrote.slice(0, 10)} wrote the file with the type's first code`);
    } else {
      addEntry(name, `${wrote}^`, `backfilled: the parent of ${wrote.slice(0, 10)}, which wrote the file`);
    }
  }
}

function record(types: string[]): void {
  const result = checkReplayRule(root);
  const wanted = result.types.filter((t) =>
    types.length > 0 ? types.includes(t.type) : !t.satisfied && t.previous?.fingerprint,
  );
  if (wanted.length === 0) {
    console.log('The replay rule holds: nothing to record.');
    return;
  }
  const byCommit = new Map<string, typeof wanted>();
  for (const t of wanted) {
    if (!t.previous?.fingerprint) {
      console.log(`${t.type}: no previous version to record from (a new type); record it on this code.`);
      continue;
    }
    byCommit.set(t.previous.commit, [...(byCommit.get(t.previous.commit) ?? []), t]);
  }
  for (const [commit, ofCommit] of byCommit) {
    const short = commit.slice(0, 10);
    const worktree = mkdtempSync(path.join(tmpdir(), `booksync-previous-${short}-`));
    console.log(`${short}: recording ${ofCommit.map((t) => t.type).join(', ')} in ${worktree}`);
    git.git('worktree', 'add', '--detach', '--force', worktree, commit);
    try {
      symlinkSync(path.join(root, 'node_modules'), path.join(worktree, 'node_modules'));
      const lockChanged = spawnSync('git', ['diff', '--quiet', commit, '--', 'package-lock.json'], {
        cwd: root,
      });
      if (lockChanged.status !== 0) {
        console.warn(
          `${short}: package-lock.json differs from this checkout's; recording with today's packages`,
        );
      }
      const files = [...new Set(ofCommit.map((t) => recorders[t.type] ?? defaultRecorder))]
        .map((file) =>
          file === defaultRecorder && !existsSync(path.join(worktree, file)) ? earlierDefaultRecorder : file,
        )
        .filter((file) => existsSync(path.join(worktree, file)));
      const run = spawnSync('npx', ['vitest', 'run', ...files], {
        cwd: worktree,
        stdio: 'inherit',
        env: { ...process.env, BOOKSYNC_RECORD_HISTORIES: '1' },
      });
      if (run.status !== 0)
        console.warn(`${short}: the recorder failed (exit ${run.status}); keeping what it wrote`);
      // What the recorder wrote: files changed or added under the histories folder.
      const written = execFileSync(
        'git',
        ['status', '--porcelain', '--untracked-files=all', historiesFolder],
        {
          cwd: worktree,
          encoding: 'utf8',
        },
      )
        .split('\n')
        .map((line) => line.slice(3).trim())
        .filter((file) => file.endsWith('.json'));
      for (const file of written) {
        const type = historyType(worktree, path.basename(file));
        const t = ofCommit.find((candidate) => candidate.type === type);
        if (!t) continue;
        const name = `${path.basename(file, '.json')}-from-${commit.slice(0, 7)}.json`;
        copyFileSync(path.join(worktree, file), path.join(root, historiesFolder, name));
        addEntry(
          name,
          commit,
          `recorded by scripts/record-previous-histories.ts (${defaultRecorder} or its type's own test)`,
        );
      }
      const missing = ofCommit.filter(
        (t) => !written.some((file) => historyType(worktree, path.basename(file)) === t.type),
      );
      if (missing.length > 0)
        console.warn(`${short}: nothing recorded for ${missing.map((t) => t.type).join(', ')}`);
    } finally {
      git.git('worktree', 'remove', '--force', worktree);
      rmSync(worktree, { recursive: true, force: true });
    }
  }
  const after = checkReplayRule(root);
  console.log(after.problems.length === 0 ? 'The replay rule holds.' : after.problems.join('\n'));
}

const args = process.argv.slice(2);
if (args[0] === '--add') {
  if (!args[1] || !args[2]) throw new Error('usage: --add <history file name> <commit>');
  addEntry(args[1], args[2], `added by hand: recorded from ${args[2]}`);
} else if (args[0] === '--backfill') {
  backfill();
} else {
  record(args);
}
