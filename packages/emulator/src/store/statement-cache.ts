import type Database from 'better-sqlite3';

/**
 * Makes db.prepare return one compiled statement per SQL text. The emulator's domain code prepares its
 * queries where it uses them (about a hundred call sites); compiling them on every request cost an eighth of
 * its CPU under load (docs/benchmarks.md). Safe because nothing in the emulator changes a statement's mode
 * (pluck/raw/expand) or iterates two uses of one statement at once.
 */
export function cachePreparedStatements(db: Database.Database): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = compile(source);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof db.prepare;
}
