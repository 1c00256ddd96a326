import { appendFileSync } from 'node:fs';
import { beforeAll, expect } from 'vitest';

// With BOOKSYNC_TEST_PROCESSES naming a file, each test file writes the process it runs in there (its id, the
// second it started, the file), so scripts/ci-cpu.py can give each file the CPU of its process and of
// everything it started. The start tells a process from a later one given the same id.

const file = process.env.BOOKSYNC_TEST_PROCESSES;
beforeAll(() => {
  if (!file) return;
  const started = Math.round(Date.now() / 1000 - process.uptime());
  appendFileSync(file, `${process.pid}\t${started}\t${expect.getState().testPath}\n`);
});
