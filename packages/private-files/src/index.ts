import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { userInfo } from 'node:os';

// The data folder holds secrets at rest: webhook secrets and key hashes in the emulator's database, the
// demo and command API keys in embedded-credentials.json, the deployment's settings in booksync.env, the books
// in the ledger. Only the owner may read them, whatever the umask (decision “Owner-only data folder”).
//
// A private file is written to `<file>.tmp`, created exclusively and never through a symbolic link
// (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), then renamed over the file: a reader sees the old file or the new one,
// never half of one, and a link planted at either name (a shared data folder) is refused, not followed, so
// the secrets never land where the link points. A file booksync reads its settings from is opened without
// following a link and checked on the open descriptor (no swap between the check and the read).

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

/** A file refused as it is: the message names it and says how to fix it. */
export class PrivateFileError extends Error {
  override name = 'PrivateFileError';
}

/** lstat, or null when nothing is there. */
function entryAt(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** Whether anything, a dangling symbolic link included, is at `file`. */
export function somethingAt(file: string): boolean {
  return entryAt(file) !== null;
}

const exclusiveCreate = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Creates `temporary` for writing; a regular file of ours left there by a crash is replaced, anything else refused. */
function createTemporary(temporary: string): number {
  try {
    return openSync(temporary, exclusiveCreate, ownerOnlyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const left = entryAt(temporary);
  if (left?.isFile() && left.uid === process.getuid?.()) {
    unlinkSync(temporary); // unlink never follows a link: at worst it removes one planted since
    return openSync(temporary, exclusiveCreate, ownerOnlyFile);
  }
  throw new PrivateFileError(
    `${temporary} is in the way of writing ${temporary.slice(0, -'.tmp'.length)}: refused (${left?.isSymbolicLink() ? 'a symbolic link' : 'not a file of this user'}; remove it)`,
  );
}

/** Writes a file only its owner can read, atomically; a symbolic link at the file's name is refused. */
export function writePrivateFile(file: string, content: string): void {
  const existing = entryAt(file);
  if (existing?.isSymbolicLink()) {
    throw new PrivateFileError(`${file} is a symbolic link: refused to write through it (remove it)`);
  }
  if (existing && !existing.isFile()) throw new PrivateFileError(`${file} is not a regular file: refused`);
  const temporary = `${file}.tmp`;
  const fd = createTemporary(temporary);
  let closed = false;
  try {
    // The mode given to open is masked by the umask.
    fchmodSync(fd, ownerOnlyFile);
    const bytes = Buffer.from(content);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    renameSync(temporary, file);
  } catch (error) {
    if (!closed) closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** What a file must be to be read: followed if a link or not; owned by this user (or root); mode bits refused. */
interface ReadPolicy {
  followLinks: boolean;
  ownedByUser: boolean;
  forbiddenMode: number;
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.());
  }
}

function readChecked(file: string, policy: ReadPolicy): string {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put there does not hang the open (it is refused below as not a regular file).
    fd = openSync(
      file,
      constants.O_RDONLY | constants.O_NONBLOCK | (policy.followLinks ? 0 : constants.O_NOFOLLOW),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP' && !policy.followLinks) {
      throw new PrivateFileError(`${file} is a symbolic link: refused (name the file itself)`);
    }
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new PrivateFileError(`${file} is not a regular file: refused`);
    const uid = process.getuid?.();
    if (policy.ownedByUser && uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
      throw new PrivateFileError(
        `${file} belongs to another user (uid ${stat.uid}): refused (chown ${userName()} ${file})`,
      );
    }
    if ((stat.mode & policy.forbiddenMode) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      throw new PrivateFileError(
        `${file} is open to other users (mode ${mode}): refused (chmod 600 ${file})`,
      );
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a file booksync takes its settings or keys from (the deployment's env file, embedded credentials): a
 * regular file, not a symbolic link, owned by this user (or root), that no group or other user can read.
 */
export function readPrivateFile(file: string): string {
  return readChecked(file, { followLinks: false, ownedByUser: true, forbiddenMode: 0o077 });
}

/**
 * Reads a secret named by a path the operator gave (X_FILE): a regular file no other user can read. Links are
 * followed and any owner accepted: secret mounts are links to root-owned files (Kubernetes), readable by a
 * group (fsGroup); what is written there is the secret itself, not where to send one.
 */
export function readSecretFile(file: string): string {
  return readChecked(file, { followLinks: true, ownedByUser: false, forbiddenMode: 0o007 });
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
