import path from 'node:path';
import { verifyAuditChain } from '../../console/audit-log.js';
import { openConsoleDbReadOnly } from '../../console/console-db.js';
import { type Command, CommandError } from '../command.js';
import { eachFlag } from '../flags.js';

// The console's records from the command line: its audit log's hash chain checked row by row, so an edit of
// console.db behind the console's back (a row changed, removed or moved) is found, and where.

export const consoleCommand: Command = {
  summary: "check the console's audit log: booksync console audit verify",
  usage: `booksync console audit verify [--file PATH]

Walks the console's audit log (BOOKSYNC_DATA_DIR/console.db, or PATH) from its first row and checks each
row's link to the one before and its hash of its own contents. Exits 0 with the row count and the chain's last
hash when it holds; exits 1 naming the first row that breaks it. Read-only: safe while the console runs.`,
  async run({ args, settings, out }) {
    const [group, action, ...rest] = args;
    if (group !== 'audit' || action !== 'verify') {
      throw new CommandError(`unknown console command '${args.join(' ')}': see 'booksync console --help'`);
    }
    let file = path.join(settings.BOOKSYNC_DATA_DIR, 'console.db');
    eachFlag('console audit verify', rest, (flag, value) => {
      if (flag === '--file') file = value();
      else throw new CommandError(`console audit verify: unknown argument ${flag}`);
    });
    let db: ReturnType<typeof openConsoleDbReadOnly>;
    try {
      db = openConsoleDbReadOnly(file);
    } catch (error) {
      throw new CommandError(`console audit verify: cannot open ${file}: ${(error as Error).message}`);
    }
    try {
      const verdict = verifyAuditChain(db);
      if (!verdict.intact) {
        out(`${file}: the audit log is broken at row ${verdict.brokenRow}: ${verdict.reason}`);
        return 1;
      }
      out(`${file}: the audit log holds, ${verdict.rows} rows; last hash ${verdict.head}`);
      return 0;
    } finally {
      db.close();
    }
  },
};
