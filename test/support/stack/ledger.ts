import path from 'node:path';
import { EmbeddedLedger } from '../../../src/ledger/embedded-ledger.js';
import type { Closer } from './closer.js';

/** booksync's SQLite ledger: a file in the stack's folder, at the path given, or one the caller opened (left open). */
export type LedgerChoice = 'sqlite' | { path: string } | EmbeddedLedger;

export interface LedgerPart {
  path: string;
  /**
   * The ledger, opened on first use: at once by an in-process worker, and only when the test reads it when
   * a worker process writes the file.
   */
  open(): EmbeddedLedger;
}

export function ledgerPart(choice: LedgerChoice, context: { dir: string; closing: Closer }): LedgerPart {
  if (choice instanceof EmbeddedLedger) return { path: choice.database.name, open: () => choice };
  const file = choice === 'sqlite' ? path.join(context.dir, 'books.db') : choice.path;
  let ledger: EmbeddedLedger | undefined;
  context.closing.push(() => ledger?.close());
  return {
    path: file,
    open: () => {
      ledger ??= EmbeddedLedger.open({ path: file });
      return ledger;
    },
  };
}
