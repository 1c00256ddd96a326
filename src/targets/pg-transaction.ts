import type pg from 'pg';

/**
 * `work` in one transaction on a client of the pool, opened by `begin` (BEGIN and its options): committed
 * when it returns, rolled back when it throws; the client goes back to the pool either way.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
