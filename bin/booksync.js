#!/usr/bin/env node
import { existsSync } from 'node:fs';
// booksync's command line. TypeScript sources run as they are, with no build step: on Node's own type
// stripping where this Node has it (22.18 and later, 23.6 and later) and in-thread module hooks, with Node's
// compile cache, so a start reads each module's compiled code from the cache; elsewhere through tsx's loader.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  // Its SQLite driver (better-sqlite3 13, Node-API) does not load on older lines; say so in one line.
  console.error(
    `booksync: needs Node.js 22 or newer, this is ${process.version}. Install Node 24 LTS, or run it through npm (npm start), which obtains one.`,
  );
  process.exit(1);
}

const projectRoot = new URL('../', import.meta.url).href;
const native =
  Boolean(process.features.typescript) &&
  typeof module.registerHooks === 'function' &&
  process.env.BOOKSYNC_TYPESCRIPT_LOADER !== 'tsx';
if (native) {
  // The sources import each other as `./x.js` (TypeScript's NodeNext convention): within the project, a
  // relative `.js` that is not there is its `.ts`.
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (
        parent?.startsWith(projectRoot) &&
        parent.endsWith('.ts') &&
        specifier.endsWith('.js') &&
        (specifier.startsWith('./') || specifier.startsWith('../'))
      ) {
        const ts = new URL(`${specifier.slice(0, -3)}.ts`, parent);
        if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
      }
      return nextResolve(specifier, context);
    },
  });
  module.enableCompileCache?.();
} else {
  const { register } = await import('tsx/esm/api');
  register();
}
await import('../src/cli/main.ts');
