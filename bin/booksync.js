#!/usr/bin/env node
// booksync's command line. TypeScript sources run as they are, with no build step (bin/typescript-loader.js).
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  // Its SQLite driver (better-sqlite3 13, Node-API) does not load on older lines; say so in one line.
  console.error(
    `booksync: needs Node.js 22 or newer, this is ${process.version}. Install Node 24 LTS, or run it through npm (npm start), which obtains one.`,
  );
  process.exit(1);
}
await import('./typescript-loader.js');
await import('../src/cli/main.ts');
