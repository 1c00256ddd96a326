import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

// The data folder holds secrets at rest: webhook secrets and key hashes in the emulator's database, the
// demo and command API keys in embedded-credentials.json, the books in the ledger. Only the owner may read
// them, whatever the umask (D43). `mode` on create is masked by the umask and ignored for an existing file,
// hence the chmod after.

const ownerOnlyFile = 0o600;
const ownerOnlyDir = 0o700;

/**
 * Creates the folder (and any missing parent) 0700. A folder that already exists is left as it is: it may be
 * one the operator chose and shares (BOOKSYNC_DATA_DIR=/tmp); the files booksync keeps in it are 0600.
 */
export function ensurePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  const first = mkdirSync(dir, { recursive: true, mode: ownerOnlyDir });
  if (first !== undefined) chmodSync(dir, ownerOnlyDir);
}

/** Writes a file only its owner can read (an existing file is tightened too). */
export function writePrivateFile(file: string, content: string): void {
  writeFileSync(file, content, { mode: ownerOnlyFile });
  chmodSync(file, ownerOnlyFile);
}

const sqliteSideFiles = ['-wal', '-shm', '-journal'];

/**
 * A SQLite database file only its owner can read. Called before opening, it creates the file 0600, and
 * SQLite gives the -wal, -shm and -journal files it creates later the database file's mode. Called again after
 * opening, it tightens side files an older version left. ':memory:' and URIs are left alone.
 */
export function privateSqliteFile(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', ownerOnlyFile));
  for (const path of [file, ...sqliteSideFiles.map((suffix) => `${file}${suffix}`)]) {
    if (existsSync(path)) tighten(path);
  }
}

/** Only the owner may chmod: another user with write access (a shared group) opens the file as it is. */
function tighten(path: string): void {
  try {
    chmodSync(path, ownerOnlyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}
