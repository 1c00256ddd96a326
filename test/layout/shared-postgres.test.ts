import { afterAll, describe, expect, it } from 'vitest';
import type { PostgresCluster } from '../support/postgres.js';
import { sharedPostgres } from '../support/shared-postgres.js';

// The run's shared PostgreSQL (test/support/shared-postgres.ts): files side by side each see databases of
// their own under the names they gave, and a file that is done drops only its own.

const leases: PostgresCluster[] = [];
afterAll(async () => {
  for (const lease of leases) await lease.stop();
});

async function lease(): Promise<PostgresCluster> {
  const cluster = await sharedPostgres({ name: 'shared-test' });
  leases.push(cluster);
  return cluster;
}

const databases = async (cluster: PostgresCluster) =>
  (await cluster.psql('SELECT datname FROM pg_database ORDER BY datname')).trim().split('\n');

describe("the run's shared PostgreSQL", () => {
  it('is one server; two users of the same name each get a database of their own', async () => {
    const [first, second] = [await lease(), await lease()];
    expect(second.port).toBe(first.port);
    const urls = [await first.createDatabase('books'), await second.createDatabase('books')];
    expect(urls[0]).not.toBe(urls[1]);
    expect(first.databaseName('books')).not.toBe(second.databaseName('books'));
    expect(first.databaseName('books')).toMatch(/^books_\d+_\d+$/);
    expect(first.url('books')).toBe(urls[0]);
    await first.psql('CREATE TABLE kept (n integer); INSERT INTO kept VALUES (1)', 'books');
    expect((await first.psql('SELECT count(*) FROM kept', 'books')).trim()).toBe('1');
    await expect(second.psql('SELECT count(*) FROM kept', 'books')).rejects.toThrow(/kept/);
  });

  it('copies a template by the name its user gave it', async () => {
    const cluster = await lease();
    await cluster.createDatabase('template_source');
    await cluster.psql("CREATE TABLE t (s text); INSERT INTO t VALUES ('copied')", 'template_source');
    await cluster.createDatabase('copy', { template: 'template_source' });
    expect((await cluster.psql('SELECT s FROM t', 'copy')).trim()).toBe('copied');
  });

  it('stop() drops its own databases and leaves the server and the others', async () => {
    const [mine, theirs] = [await lease(), await lease()];
    await mine.createDatabase('gone');
    await theirs.createDatabase('stays');
    const gone = mine.databaseName('gone');
    const stays = theirs.databaseName('stays');
    expect(await databases(theirs)).toEqual(expect.arrayContaining([gone, stays]));
    await mine.stop();
    const left = await databases(theirs);
    expect(left).toContain(stays);
    expect(left).not.toContain(gone);
  });
});
