import { startTryton } from '../../test/support/tryton.js';

// A local Tryton for trying booksync's Tryton target: PostgreSQL (Debian's) in a temporary folder, a database
// prepared with booksync's chart of accounts, and Tryton as production runs it on 127.0.0.1: trytond,
// trytond-worker with the task queue on (`[queue] worker = True`) and trytond-cron. Prints the settings to
// give booksync, runs until Ctrl-C, then stops them (the worker with SIGINT) and removes everything.
//
//   npx tsx scripts/tryton/local.ts

const tryton = await startTryton({ queue: true });
console.log(`Tryton ${tryton.url} (database ${tryton.database}) is running. In another terminal:

  ACCOUNTING_TARGET=tryton TRYTON_URL=${tryton.url} TRYTON_DATABASE=${tryton.database} \\
  TRYTON_USER=${tryton.username} TRYTON_PASSWORD=${tryton.password} npm start

Ctrl-C stops Tryton (trytond, trytond-worker, trytond-cron) and PostgreSQL and removes their files.`);
const stop = async () => {
  await tryton.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
await new Promise(() => undefined);
