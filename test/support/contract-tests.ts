import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Which test files need the vendors' contracts: those that import, directly or through other test modules,
// the modules that read them (test/support/vendor-contracts.ts). Worked out from the import statements, so a
// new test of a double is found without a list to keep.

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'fixtures' || entry.name.startsWith('.') ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Test files (relative to root, with forward slashes) that reach vendor-contracts.ts through their imports. */
export function testsNeedingContracts(root: string): string[] {
  const testDir = path.join(root, 'test');
  const target = path.join(testDir, 'support', 'vendor-contracts.ts');
  const imports = new Map<string, string[]>();
  for (const file of sourceFiles(testDir)) {
    const text = readFileSync(file, 'utf8');
    const found: string[] = [];
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (!spec) continue;
      found.push(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
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
