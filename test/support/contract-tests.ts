import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importedFile, testDirs } from './test-tiers.js';

// Which test files need the vendors' contracts: those that import, directly or through other test modules,
// the modules that read them (packages/vendor-doubles/src/contracts.ts). Worked out from the import statements, so a
// new test of a double is found without a list to keep.

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+|@booksync\/[^'"]+)['"]|import\(\s*['"](\.[^'"]+|@booksync\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'fixtures' || entry.name.startsWith('.') ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Test files (relative to root, with forward slashes) that reach the contracts' reader through their imports. */
export function testsNeedingContracts(root: string): string[] {
  const target = path.join(root, 'packages', 'vendor-doubles', 'src', 'contracts.ts');
  const imports = new Map<string, string[]>();
  const dirs = [...testDirs(root), path.join(root, 'packages', 'vendor-doubles', 'src')];
  for (const file of dirs.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    const found: string[] = [];
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (!spec) continue;
      found.push(importedFile(root, file, spec));
    }
    imports.set(file, found);
  }
  const reaches = new Map<string, boolean>();
  const visit = (file: string, seen: Set<string>): boolean => {
    if (file === target) return true;
    if (reaches.get(file)) return true;
    if (seen.has(file)) return false;
    seen.add(file);
    const result = (imports.get(file) ?? []).some((next) => visit(next, seen));
    // Only a yes is kept: a no found inside an import cycle may be a yes seen from elsewhere.
    if (result) reaches.set(file, true);
    return result;
  };
  return [...imports.keys()]
    .filter((file) => file.endsWith('.test.ts') && visit(file, new Set()))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
    .sort();
}
