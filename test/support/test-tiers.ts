import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The test tiers, read from the tests themselves rather than kept by hand:
//   e2e          runs booksync as its users do: `booksync start` or the composed stack of processes, a
//                deployment's topology, a real browser;
//   integration  starts a server or a process (Temporal, PostgreSQL, Tryton, a double on a port, the CLI);
//   unit         neither: in-process code only, the inner loop.
// A file's tier is the highest any marker puts it in, in the file or in the test/support modules it imports
// (followed transitively), unless the file declares its tier. The unit tier's set-up (test/support/unit-guard.ts) refuses a child process or a
// listening socket, so a file this reading misses fails loudly instead of slowing the inner loop.

export type Tier = 'unit' | 'integration' | 'e2e';

const e2eMarkers = [
  /\bBooksyncProcess\b/,
  /\bstartThreeTargets\b|three-targets\.js/,
  /\bstartStack\b|stack\/stack\.js/,
  /process-stack\.js|e2e-stack\.js/,
  /headless-chromium\.js|playwright/,
];

const integrationMarkers = [
  /\bstartDevServer\b|\bstartTimeSkipping\b|\bcreateLocal\b|\bcreateTimeSkipping\b/,
  /\bstartPostgres\b|\bsharedPostgres\b|\bpostgresStore\b|\bledgerStores\b/,
  /\bstartTryton\b/,
  /node:child_process|\brunBooksync\b|\bspawnBooksync\b/,
  /\.listen\(|\blistenOn\b|\bstartVendorDouble\b|\bstartDouble\b/,
  /\bWorker\.create\b|\bNativeConnection\b|\bTestWorkflowEnvironment\b/,
  /\bworkflowBundle\b|\bcachedWorkflowBundle\b|\bbundleWorkflowCode\b|\bbundleInChild\b/,
];

const importPattern = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+|@booksync\/[^'"]+)['"]/g;

/**
 * The file an import names: a relative path, or a workspace package's subpath (`@booksync/<name>/<sub>`, its
 * `exports` mapping `./*` to `./src/*.ts`).
 */
export function importedFile(root: string, from: string, spec: string): string {
  const pkg = /^@booksync\/([^/]+)\/(.+)$/.exec(spec);
  if (pkg) return path.join(root, 'packages', pkg[1] as string, 'src', `${pkg[2]}.ts`);
  return path.resolve(path.dirname(from), spec.replace(/\.js$/, '.ts'));
}

/** The folders holding test files: test/, and each workspace package's test/. */
export function testDirs(root: string): string[] {
  const packages = path.join(root, 'packages');
  let names: string[] = [];
  try {
    names = readdirSync(packages).filter((name) =>
      statSync(path.join(packages, name, 'test'), { throwIfNoEntry: false })?.isDirectory(),
    );
  } catch {
    names = [];
  }
  return [path.join(root, 'test'), ...names.sort().map((name) => path.join(packages, name, 'test'))];
}

/** A file may say its tier in its first lines (`// test tier: integration`): that is its tier. */
const declaration = /^\/\/ test tier: (unit|integration|e2e)\b/m;

function tierOfText(text: string): Tier {
  if (e2eMarkers.some((m) => m.test(text))) return 'e2e';
  if (integrationMarkers.some((m) => m.test(text))) return 'integration';
  return 'unit';
}

const rank: Record<Tier, number> = { unit: 0, integration: 1, e2e: 2 };

/**
 * The tier of every test file under test/ and the packages' test/ folders (paths relative to `root`, forward
 * slashes). The tests' own helpers are followed through their imports, and so are the workspace packages' files
 * (a vendor double that listens makes its tests integration).
 */
export function testTiers(root: string): Map<string, Tier> {
  const followed = [path.join(root, 'test'), path.join(root, 'packages')];
  const own = new Map<string, Tier>();
  const imports = new Map<string, string[]>();
  const read = (file: string) => {
    if (own.has(file)) return;
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      own.set(file, 'unit');
      imports.set(file, []);
      return;
    }
    const declared = declaration.exec(text)?.[1] as Tier | undefined;
    own.set(file, declared ?? tierOfText(text));
    if (declared) {
      imports.set(file, []);
      return;
    }
    const local = [...text.matchAll(importPattern)]
      .map((m) => importedFile(root, file, m[1] as string))
      // Only the tests' own helpers and the packages are followed: booksync's modules are what the tests exercise.
      .filter((target) => followed.some((dir) => target.startsWith(dir + path.sep)));
    imports.set(file, local);
    for (const target of local) read(target);
  };
  const memo = new Map<string, Tier>();
  const tierOf = (file: string, visiting: Set<string>): Tier => {
    const known = memo.get(file);
    if (known) return known;
    let tier = own.get(file) ?? 'unit';
    visiting.add(file);
    for (const target of imports.get(file) ?? []) {
      if (visiting.has(target)) continue;
      const t = tierOf(target, visiting);
      if (rank[t] > rank[tier]) tier = t;
    }
    visiting.delete(file);
    memo.set(file, tier);
    return tier;
  };
  const result = new Map<string, Tier>();
  for (const file of testDirs(root).flatMap(testFiles)) {
    read(file);
    result.set(path.relative(root, file).split(path.sep).join('/'), tierOf(file, new Set()));
  }
  return result;
}

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...testFiles(full));
    else if (name.endsWith('.test.ts')) found.push(full);
  }
  return found.sort();
}

/** The files of one tier. */
export function filesOfTier(tiers: Map<string, Tier>, tier: Tier): string[] {
  return [...tiers].filter(([, t]) => t === tier).map(([file]) => file);
}
