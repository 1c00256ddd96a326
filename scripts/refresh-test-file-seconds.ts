// Rewrites test/support/test-file-seconds.ts from a run's JSON report (CI writes one at
// test/.artifacts/vitest-report.json): the files of 15 s or more, longest first.
//   bash scripts/with-node.sh node_modules/.bin/tsx scripts/refresh-test-file-seconds.ts [report.json]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const reportFile = path.resolve(process.argv[2] ?? path.join(root, 'test/.artifacts/vitest-report.json'));
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const reportRoot = path.dirname(path.dirname(path.dirname(reportFile)));
const rows = report.testResults
  .map((file) => ({
    file: path.relative(reportRoot, file.name).split(path.sep).join('/'),
    seconds: Math.round((file.endTime - file.startTime) / 1000),
  }))
  .filter((row) => row.seconds >= 15)
  .sort((a, b) => b.seconds - a.seconds);

const header = `// The seconds each of the suite's slowest files took in a CI run on this machine kind (2 cores, three vitest
// workers; files of 15 s or more). The sequencer starts the longest first, so the workers finish together
// instead of one running the last long file alone. Refresh it when a file's time moves a lot (a stale figure
// only costs balance, never a test): scripts/refresh-test-file-seconds.ts rewrites it from a run's JSON report.
export const testFileSeconds: Readonly<Record<string, number>> = {
`;
const body = rows.map((row) => `  '${row.file}': ${row.seconds},`).join('\n');
writeFileSync(path.join(root, 'test/support/test-file-seconds.ts'), `${header}${body}\n};\n`);
console.log(`${rows.length} files of 15 s or more from ${reportFile}`);
