import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The process groups test servers start (Tryton's web server, its queue worker and scheduler), written down
// so the run's global teardown ends whatever a test left behind: a file that timed out in its hooks or a
// worker that died never calls close(), and a forked scheduler child outlives its parent's death signal.

/** The folder where each test worker lists the process groups it started (set by the global set-up). */
export const processGroupsVariable = 'BOOKSYNC_TEST_PROCESS_GROUPS';

/** The run's folder for the lists; the global set-up calls it once. */
export function openProcessGroupRegistry(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'booksync-process-groups-'));
  process.env[processGroupsVariable] = folder;
  return folder;
}

/** Records a process group started by this test worker (nothing outside a run with the registry). */
export function recordProcessGroup(pgid: number): void {
  const folder = process.env[processGroupsVariable];
  if (!folder) return;
  appendFileSync(path.join(folder, `${process.pid}.txt`), `${pgid}\n`);
}

/** Ends every process group recorded in `folder` that still has a process, then removes the folder. */
export function endRecordedProcessGroups(folder: string): number[] {
  const ended: number[] = [];
  for (const file of readdirSync(folder)) {
    if (!file.endsWith('.txt')) continue;
    for (const line of readFileSync(path.join(folder, file), 'utf8').split('\n')) {
      const pgid = Number(line);
      if (!Number.isInteger(pgid) || pgid <= 1) continue;
      try {
        process.kill(-pgid, 'SIGKILL');
        ended.push(pgid);
      } catch {
        // Already gone: its test closed it.
      }
    }
  }
  rmSync(folder, { recursive: true, force: true });
  return ended;
}
