import { describe, expect, it } from 'vitest';
import { PostgresOAuthConnections } from '../../../src/targets/oauth/postgres-connection.js';

// The connection's database url may hold a password (LEDGER_URL): neither where the connection is said to be
// (printed by `targets connect`) nor a database error names it.

describe('the OAuth connection in PostgreSQL', () => {
  it('never shows the database password', async () => {
    const store = new PostgresOAuthConnections({
      url: 'postgres://booksync:hunter2@127.0.0.1:1/books?password=hunter2',
      target: 'quickbooks',
    });
    expect(store.where).toContain('postgres://booksync:***@127.0.0.1:1/books');
    expect(store.where).not.toContain('hunter2');
    const failure = await store.readConnection().catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).not.toContain('hunter2');
    expect(JSON.stringify(failure)).not.toContain('hunter2');
    await store.close();
  });
});
