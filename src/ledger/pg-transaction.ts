import type pg from 'pg';

/**
 * `work` in one transaction on a client of the pool, opened by `begin` (BEGIN and its options): committed
 * when it returns, rolled back when it throws; the client goes back to the pool either way, or is dropped
 * when even its ROLLBACK failed (a broken connection). The ledger's writes, its reads of one snapshot, the
 * target index and the OAuth connection store all open their transactions here.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
