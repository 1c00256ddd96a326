import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse as parsePath } from 'node:path';
import { fileURLToPath } from 'node:url';

// A vendor's contract is read from its file every time; what a parser makes of it is kept as JSON, keyed by
// the file's bytes, the parser's package and version and how it is called. Parsing Xero's 900 KB of YAML took
// seconds of CPU in every process that started a double, reading its JSON a tenth of that. A file that changes,
// another parser version or other options give another key; a cache file that cannot be read is parsed again.

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The folder the parses are kept in: VENDOR_DOUBLES_PARSE_CACHE, or node_modules/.cache/ above this package. */
export function parseCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VENDOR_DOUBLES_PARSE_CACHE) return env.VENDOR_DOUBLES_PARSE_CACHE;
  for (let dir = here; dir !== parsePath(dir).root; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules', '.cache', 'vendor-doubles');
  }
  return join(here, '..', '.cache');
}

/** `name@version` of an installed package, read from its own package.json. */
export function packageVersion(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== parsePath(dir).root; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === name) return `${name}@${pkg.version}`;
  }
  throw new Error(`no package.json found for ${name}`);
}

/**
 * `parse(text)` of the file, through the cache: `recipe` names the parser and its options (what else would
 * make another result from the same bytes). The result must survive JSON (plain objects, arrays, strings,
 * numbers, booleans, null).
 */
export function parsedFile<T>(file: string, recipe: string, parse: (text: string) => T): T {
  const text = readFileSync(file, 'utf8');
  const key = createHash('sha256').update(recipe).update('\0').update(text).digest('hex');
  const dir = parseCacheDir();
  const cached = join(dir, `${key}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as T;
  } catch {
    // Not parsed yet (or a cache file left unreadable): parse it.
  }
  const result = parse(text);
  try {
    mkdirSync(dir, { recursive: true });
    // Written whole under another name, then renamed: a process reading it at the same time sees all or nothing.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(result));
    renameSync(partial, cached);
  } catch {
    // A read-only folder only costs the next process the parse.
  }
  return result;
}
