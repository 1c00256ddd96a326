import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OAuthConnectionFile } from '../../../src/targets/oauth/connection-file.js';
import { FileLockTimeout, withFileLock } from '../../../src/targets/oauth/file-lock.js';

// The connection file shared by several workers. Every save used the temporary file
// `<file>.<pid>.tmp`, and in compose every container's node is PID 1 on the shared volume, so concurrent saves
// renamed each other's temporary file away and failed. Here all savers are one process: one pid, the same
// collision.

const dir = mkdtempSync(path.join(tmpdir(), 'booksync-connection-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const connection = (i: number) => ({
  companyId: 'realm-1',
  refreshToken: `v1.sealed-${i}`,
  connectedAt: '2026-01-01T00:00:00.000Z',
});

describe('the OAuth connection file', () => {
  it('takes 300 concurrent saves from separate stores (one pid, as in containers): all succeed', async () => {
    const file = path.join(dir, 'saves', 'connection.json');
    const stores = Array.from({ length: 300 }, () => new OAuthConnectionFile(file, 'realmId', 'QuickBooks'));
    const saves = await Promise.allSettled(stores.map((s, i) => s.storage('realm-1').save(`v1.sealed-${i}`)));
    expect(saves.filter((s) => s.status === 'rejected')).toEqual([]);
    const stored = await stores[0]!.readConnection();
    expect(stored?.refreshToken).toMatch(/^v1\.sealed-\d+$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['connection.json']);
  });

  it('takes 100 concurrent connection writes (each under the lock): all succeed, no lock or temporary left', async () => {
    const file = path.join(dir, 'writes', 'connection.json');
    const stores = Array.from({ length: 100 }, () => new OAuthConnectionFile(file, 'realmId', 'QuickBooks'));
    const writes = await Promise.allSettled(stores.map((s, i) => s.writeConnection(connection(i))));
    expect(writes.filter((s) => s.status === 'rejected')).toEqual([]);
    expect((await stores[0]!.readConnection())?.companyId).toBe('realm-1');
    expect(readdirSync(path.dirname(file))).toEqual(['connection.json']);
  });

  it('runs one locked refresh at a time: a reader under the lock sees the previous holder’s save', async () => {
    const file = path.join(dir, 'serial', 'connection.json');
    const first = new OAuthConnectionFile(file, 'realmId', 'QuickBooks');
    await first.writeConnection({ ...connection(0), refreshToken: '0' });
    // Each "refresh" reads the number, waits, and saves the next: without mutual exclusion some would read
    // the same number and the final count would be short.
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const storage = new OAuthConnectionFile(file, 'realmId', 'QuickBooks').storage('realm-1');
        await storage.exclusive?.(async () => {
          inside++;
          most = Math.max(most, inside);
          const n = Number(await storage.load());
          await new Promise((resolve) => setTimeout(resolve, 5));
          await storage.save(String(n + 1));
          inside--;
        });
      }),
    );
    expect(most).toBe(1);
    expect((await first.readConnection())?.refreshToken).toBe('20');
  });
});

describe('the lock file', () => {
  it('is taken over when its holder stopped touching it (crashed), and waited for while it is live', async () => {
    const lock = path.join(dir, 'stale.lock');
    writeFileSync(lock, 'some-host 1 dead-holder\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withFileLock(lock, async () => 'ran', { staleMs: 1_000, timeoutMs: 5_000 })).toBe('ran');
    expect(readdirSync(dir).filter((f) => f.startsWith('stale'))).toEqual([]);

    const live = path.join(dir, 'live.lock');
    const order: string[] = [];
    const holder = withFileLock(
      live,
      async () => {
        order.push('holder in');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        order.push('holder out');
      },
      { staleMs: 300 },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The holder touches its lock every staleMs / 3: a waiter never takes it over as stale.
    await withFileLock(live, async () => order.push('waiter'), { staleMs: 300, timeoutMs: 5_000 });
    await holder;
    expect(order).toEqual(['holder in', 'holder out', 'waiter']);
  });

  it('gives up after its timeout while a live holder keeps it', async () => {
    const lock = path.join(dir, 'busy.lock');
    let release = () => {};
    const holder = withFileLock(lock, () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(withFileLock(lock, async () => 'never', { timeoutMs: 300 })).rejects.toBeInstanceOf(
      FileLockTimeout,
    );
    release();
    await holder;
  });
});
