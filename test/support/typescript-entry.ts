import path from 'node:path';

// Node flags that run a TypeScript file of the project in a process of its own as bin/booksync.js runs the
// sources (bin/typescript-loader.js: Node's type stripping, tsx where Node has none).

/** The loader's URL, for `--import` (a forked child's execArgv). */
export const typescriptLoader = new URL('../../bin/typescript-loader.js', import.meta.url).href;

/** `node ...typescriptEntry(file)` runs `file` (TypeScript) with booksync's loader. */
export function typescriptEntry(file: string): string[] {
  return ['--import', typescriptLoader, path.resolve(file)];
}
