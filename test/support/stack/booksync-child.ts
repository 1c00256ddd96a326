import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../booksync-cli.js';

const bin = path.join(projectRoot, 'bin', 'booksync.js');

/**
 * `node bin/booksync.js <args>` in its own process group (a signal to the group takes it and its children
 * down at once), its output piped.
 */
export function spawnBooksync(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [bin, ...args], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** A signal to the child's whole process group; nothing when it is gone already. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
