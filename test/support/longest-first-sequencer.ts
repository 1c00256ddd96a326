import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { testFileSeconds } from './test-file-seconds.js';

/**
 * Runs the files known to be long first, longest first (the rest in vitest's own order after them): with two
 * workers, the longest-first order keeps one worker from running a long file alone at the end of the run.
 * vitest's own order uses the durations of an earlier run on the same machine, which a fresh clone (CI)
 * does not have, and falls back to file size.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = (file: TestSpecification) =>
      testFileSeconds[path.relative(file.project.config.root, file.moduleId).split(path.sep).join('/')] ?? 0;
    // A stable sort: files with no figure keep vitest's order.
    return [...ordered].sort((a, b) => seconds(b) - seconds(a));
  }
}
