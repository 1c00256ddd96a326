import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { testFileSeconds } from './test-file-seconds.js';

/**
 * Files that spend most of their time waiting on the wall clock, not on the cores: slow-loris connections held
 * until the servers' timeouts close them, a Temporal outage waited out. Started side by side, as their
 * similar lengths had them, they left the two cores about half idle for a minute and a half (vmstat, in two
 * CI runs); spread out, each waits beside files that use the cores.
 */
export const waitingFiles: readonly string[] = [
  'test/reliability/security.test.ts',
  'test/reliability/temporal-outage.test.ts',
];

/**
 * The run's order: the files known to be long first, longest first (a stable sort: the rest keep the order
 * they came in); then each waiting file moved to start one round of `workers` after the first, with a round
 * of other files between one waiting file and the next.
 */
export function runOrder<T>(
  files: readonly T[],
  name: (file: T) => string,
  seconds: Readonly<Record<string, number>>,
  waiting: readonly string[],
  workers: number,
): T[] {
  const longestFirst = [...files].sort((a, b) => (seconds[name(b)] ?? 0) - (seconds[name(a)] ?? 0));
  const waits = longestFirst.filter((file) => waiting.includes(name(file)));
  const order = longestFirst.filter((file) => !waiting.includes(name(file)));
  waits.forEach((file, i) => {
    order.splice(Math.min(order.length, workers + i * (workers + 1)), 0, file);
  });
  return order;
}

/**
 * Runs the files known to be long first (runOrder), so the workers end together instead of one running a
 * long file alone at the end of the run. vitest's own order uses the durations of an earlier run on the same
 * machine, which a fresh clone (CI) does not have, and falls back to file size.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const name = (file: TestSpecification) =>
      path.relative(file.project.config.root, file.moduleId).split(path.sep).join('/');
    return runOrder(ordered, name, testFileSeconds, waitingFiles, this.ctx.config.maxWorkers);
  }
}
