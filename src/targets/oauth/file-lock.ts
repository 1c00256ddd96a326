import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ConnectionLockBusy } from './connection-store.js';

// A lock between processes that share a folder (several workers on one volume, `targets connect` beside
// them): a lock file created with O_EXCL, holding a random owner token (never the pid alone: in containers
// every node is PID 1). The holder touches it while it works; a lock file nobody touched for `staleMs` is a
// crashed holder's and is taken over. Taking over renames the stale file away first and checks it is still
// the one judged stale, so two waiters cannot both take it; the holder checks the lock is still its own before
// it commits (`stillHeld`).

export interface FileLockOptions {
  /** A lock untouched this long is a dead holder's. Default 30 s (the holder touches it every staleMs / 3). */
  staleMs?: number;
  /** Give up waiting after this long. Default 90 s. */
  timeoutMs?: number;
}

export class FileLockTimeout extends ConnectionLockBusy {
  override readonly name = 'FileLockTimeout';
}

export interface HeldFileLock {
  /** True while the lock file is still this holder's (not taken over as stale). */
  stillHeld(): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ownerOf(lockPath: string): Promise<string | null> {
  try {
    return (await readFile(lockPath, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Runs `work` holding the lock file `lockPath`. */
export async function withFileLock<T>(
  lockPath: string,
  work: (lock: HeldFileLock) => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const owner = `${hostname()} ${process.pid} ${randomBytes(12).toString('hex')}`;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(`${owner}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await takeOverIfStale(lockPath, staleMs);
    if (Date.now() > deadline) throw new FileLockTimeout(`${lockPath} is held by another process`);
    await sleep(wait / 2 + Math.random() * wait);
  }

  const touch = setInterval(
    () => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => undefined);
    },
    Math.max(50, Math.floor(staleMs / 3)),
  );
  touch.unref();
  const held: HeldFileLock = { stillHeld: async () => (await ownerOf(lockPath)) === owner };
  try {
    return await work(held);
  } finally {
    clearInterval(touch);
    if (await held.stillHeld().catch(() => false)) await unlink(lockPath).catch(() => undefined);
  }
}

async function takeOverIfStale(lockPath: string, staleMs: number): Promise<void> {
  // The owner read before and after the stat: the same (owners are unique), so the age is that holder's.
  let judged: { owner: string | null; mtimeMs: number };
  try {
    const owner = await ownerOf(lockPath);
    const info = await stat(lockPath);
    if ((await ownerOf(lockPath)) !== owner) return;
    judged = { owner, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (Date.now() - judged.mtimeMs <= staleMs) return;
  // Rename it away (atomic: of two waiters, one moves it); if what moved is not the file judged stale (another
  // waiter took over and a live holder wrote a new one meanwhile), put it back unless a newer one exists.
  const aside = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await ownerOf(aside);
  if (moved !== judged.owner) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}
