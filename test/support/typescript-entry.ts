import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Node flags that run a TypeScript file of the project in a process of its own as bin/booksync.js runs the
// sources (bin/typescript-loader.js: Node's type stripping, tsx where Node has none).

const loader = pathToFileURL(fileURLToPath(new URL('../../bin/typescript-loader.js', import.meta.url))).href;

/** `node ...typescriptEntry(file)` runs `file` (TypeScript) with booksync's loader. */
export function typescriptEntry(file: string): string[] {
  return ['--import', loader, path.resolve(file)];
}
