import { describe, expect, it } from 'vitest';
import { runOrder, waitingFiles } from '../support/longest-first-sequencer.js';
import { testFileSeconds } from '../support/test-file-seconds.js';

// The order the suite's files start in: longest first, and the files that mostly wait on the clock spread
// out, one a round, so they never wait side by side while the cores idle.

const same = (file: string) => file;

describe('the run order', () => {
  it('starts the known long files first, longest first, the rest in the order they came', () => {
    const seconds = { 'b.test.ts': 10, 'd.test.ts': 30 };
    expect(runOrder(['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts'], same, seconds, [], 3)).toEqual([
      'd.test.ts',
      'b.test.ts',
      'a.test.ts',
      'c.test.ts',
    ]);
  });

  it('moves each waiting file to start a round after the one before it, with other files between', () => {
    const files = Array.from({ length: 12 }, (_, i) => `f${i}.test.ts`);
    const seconds = Object.fromEntries(files.map((f, i) => [f, 100 - i]));
    // The two waiting files were side by side (f4, f5) among the long ones.
    const order = runOrder(files, same, seconds, ['f5.test.ts', 'f4.test.ts'], 3);
    expect(order).toHaveLength(12);
    expect(new Set(order)).toEqual(new Set(files));
    expect(order.indexOf('f4.test.ts')).toBe(3);
    expect(order.indexOf('f5.test.ts')).toBe(7);
    expect(order.filter((f) => f !== 'f4.test.ts' && f !== 'f5.test.ts')).toEqual(
      files.filter((f) => f !== 'f4.test.ts' && f !== 'f5.test.ts'),
    );
  });

  it('puts a waiting file last when there are fewer files than its place', () => {
    expect(runOrder(['w.test.ts', 'a.test.ts'], same, {}, ['w.test.ts'], 3)).toEqual([
      'a.test.ts',
      'w.test.ts',
    ]);
  });

  it('names waiting files that exist and that the seconds list knows as long', () => {
    for (const file of waitingFiles) expect(testFileSeconds[file], file).toBeGreaterThan(60);
  });
});
