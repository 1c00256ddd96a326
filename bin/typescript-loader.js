// Runs booksync's TypeScript sources as they are, with no build step: on Node's own type stripping where this
// Node has it (22.18 and later, 23.6 and later) with in-thread module hooks and Node's compile cache, so a start
// reads each module's compiled code from the cache; elsewhere (or with BOOKSYNC_TYPESCRIPT_LOADER=tsx) through
// tsx's loader. Imported first by bin/booksync.js, and by `node --import ./bin/typescript-loader.js x.ts` for
// any other entry point of the project.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const native =
  Boolean(process.features.typescript) &&
  typeof module.registerHooks === 'function' &&
  process.env.BOOKSYNC_TYPESCRIPT_LOADER !== 'tsx';
if (native) {
  // The sources import each other as `./x.js` (TypeScript's NodeNext convention): from a TypeScript module, a
  // relative `.js` whose `.ts` is there is its `.ts`. That holds for the workspace packages too, wherever their
  // link in node_modules leads (Node strips no types under node_modules, so a `.ts` parent is always ours).
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (
        parent?.startsWith('file:') &&
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
