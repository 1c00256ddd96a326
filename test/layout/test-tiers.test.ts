// test tier: unit (its fixtures name the markers as text)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesOfTier, testTiers } from '../support/test-tiers.js';

// The tiers are read from the tests: a marker in the file or in a test helper it imports (transitively) puts it
// in integration or e2e; a declared tier wins over none; booksync's own modules are not followed.

const root = mkdtempSync(path.join(tmpdir(), 'booksync-tiers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

describe('test tiers', () => {
  it('unit unless a marker, an imported helper or a declaration says otherwise', () => {
    write('test/support/pg.ts', "export const startPostgres = async () => 'pg';\n");
    write(
      'test/support/books.ts',
      "import { startPostgres } from './pg.js';\nexport const books = startPostgres;\n",
    );
    write('test/support/stack/stack.ts', 'export class BooksyncProcess {}\n');
    write(
      'test/support/uses-stack.ts',
      "import { BooksyncProcess } from './stack/stack.js';\nexport { BooksyncProcess };\n",
    );
    write('test/a/pure.test.ts', "import { x } from '../../src/x.js';\nit('adds', () => {});\n");
    write('test/a/server.test.ts', "import { startDevServer } from '../support/temporal.js';\n");
    write('test/a/through-helper.test.ts', "import { books } from '../support/books.js';\n");
    write('test/b/whole.test.ts', "import { BooksyncProcess } from '../support/uses-stack.js';\n");
    write('test/b/declared.test.ts', '// test tier: integration (it measures fsync)\nit("x", () => {});\n');
    write('test/b/says-unit.test.ts', "// test tier: unit\nconst text = 'startPostgres BooksyncProcess';\n");
    write('src/x.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n");
    const tiers = testTiers(root);
    expect(Object.fromEntries(tiers)).toEqual({
      'test/a/pure.test.ts': 'unit',
      'test/a/server.test.ts': 'integration',
      'test/a/through-helper.test.ts': 'integration',
      'test/b/declared.test.ts': 'integration',
      'test/b/says-unit.test.ts': 'unit',
      'test/b/whole.test.ts': 'e2e',
    });
    expect(filesOfTier(tiers, 'unit')).toEqual(['test/a/pure.test.ts', 'test/b/says-unit.test.ts']);
  });

  it('puts this repository in three non-empty tiers, every test file in exactly one', () => {
    const tiers = testTiers(path.resolve(import.meta.dirname, '../..'));
    const counts = { unit: 0, integration: 0, e2e: 0 };
    for (const tier of tiers.values()) counts[tier]++;
    expect(counts.unit).toBeGreaterThan(40);
    expect(counts.integration).toBeGreaterThan(40);
    expect(counts.e2e).toBeGreaterThan(10);
    expect(tiers.get('test/targets/tryton-books.test.ts')).toBe('e2e');
    expect(tiers.get('packages/service-contract/test/schemas.test.ts')).toBe('unit');
  });
});
