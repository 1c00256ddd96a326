import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPrivateFile, readSecretFile, writePrivateFile } from '../src/index.js';

// Files holding secrets in a data folder someone else may write to (BOOKSYNC_DATA_DIR=/tmp, a shared volume):
// what another user plants there (a link at the file's name or at its temporary name, a file open to everyone,
// a file of theirs) is refused, never followed or believed.

const mode = (file: string) => statSync(file).mode & 0o777;
const asRoot = process.getuid?.() === 0;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-private-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writePrivateFile', () => {
  it('writes the file 0600 under umask 000, replacing an existing one (a new file, not the old one opened)', () => {
    const file = path.join(dir, 'secret.json');
    writeFileSync(file, 'old');
    chmodSync(file, 0o644);
    const before = statSync(file).ino;
    const previous = process.umask(0);
    try {
      writePrivateFile(file, 'new secret');
    } finally {
      process.umask(previous);
    }
    expect(readFileSync(file, 'utf8')).toBe('new secret');
    expect(mode(file)).toBe(0o600);
    // Renamed over the old file (atomic): a reader never sees half of it.
    expect(statSync(file).ino).not.toBe(before);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('refuses a symbolic link at the file: the file it points to is left as it was', () => {
    const target = path.join(dir, 'elsewhere.txt');
    writeFileSync(target, 'not yours');
    const file = path.join(dir, 'booksync.env');
    symlinkSync(target, file);
    expect(() => writePrivateFile(file, 'SECRET=1')).toThrow(`${file} is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('not yours');
    expect(readlinkSync(file)).toBe(target);
  });

  it('refuses a dangling symbolic link at the file: nothing is created where it points', () => {
    const target = path.join(dir, 'attacker-reads-this');
    const file = path.join(dir, 'booksync.env');
    symlinkSync(target, file);
    expect(() => writePrivateFile(file, 'SECRET=1')).toThrow(/symbolic link/);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a symbolic link at the temporary name: nothing is written where it points', () => {
    const target = path.join(dir, 'attacker-reads-this');
    const file = path.join(dir, 'booksync.env');
    symlinkSync(target, `${file}.tmp`);
    expect(() => writePrivateFile(file, 'SECRET=1')).toThrow(`${file}.tmp is in the way`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(lstatSync(`${file}.tmp`).isSymbolicLink()).toBe(true);
  });

  it('replaces a temporary file of its own a crash left behind', () => {
    const file = path.join(dir, 'booksync.env');
    writeFileSync(`${file}.tmp`, 'half of an old wri');
    writePrivateFile(file, 'whole');
    expect(readFileSync(file, 'utf8')).toBe('whole');
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it.runIf(asRoot)("refuses another user's file at the temporary name", () => {
    const file = path.join(dir, 'booksync.env');
    writeFileSync(`${file}.tmp`, 'planted');
    chownSync(`${file}.tmp`, 65534, 65534);
    expect(() => writePrivateFile(file, 'SECRET=1')).toThrow(/in the way .*\(not a file of this user/);
    expect(readFileSync(`${file}.tmp`, 'utf8')).toBe('planted');
  });

  it('refuses a folder at the file', () => {
    const file = path.join(dir, 'booksync.env');
    mkdirSync(file);
    expect(() => writePrivateFile(file, 'SECRET=1')).toThrow(`${file} is not a regular file`);
  });
});

describe('readPrivateFile (settings and keys booksync wrote)', () => {
  const write = (name: string, content: string, fileMode: number) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    chmodSync(file, fileMode);
    return file;
  };

  it('reads a file of this user that only it can read (0600, 0400)', () => {
    expect(readPrivateFile(write('a.env', 'A=1', 0o600))).toBe('A=1');
    expect(readPrivateFile(write('b.env', 'B=1', 0o400))).toBe('B=1');
  });

  it('refuses a file others can read or write, saying how to fix it', () => {
    for (const fileMode of [0o644, 0o640, 0o620, 0o606]) {
      const file = write(`open-${fileMode.toString(8)}.env`, 'A=1', fileMode);
      expect(() => readPrivateFile(file)).toThrow(`(chmod 600 ${file})`);
    }
    const file = write('world.env', 'A=1', 0o644);
    expect(() => readPrivateFile(file)).toThrow(`${file} is open to other users (mode 0644): refused`);
  });

  it('refuses a symbolic link, even to a private file of this user', () => {
    const target = write('real.env', 'A=1', 0o600);
    const link = path.join(dir, 'link.env');
    symlinkSync(target, link);
    expect(() => readPrivateFile(link)).toThrow(`${link} is a symbolic link: refused`);
  });

  it('refuses what is not a regular file (a FIFO does not hang it)', () => {
    const fifo = path.join(dir, 'fifo.env');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    expect(() => readPrivateFile(fifo)).toThrow(`${fifo} is not a regular file`);
    expect(() => readPrivateFile(dir)).toThrow(/not a regular file|EISDIR/);
  });

  it.runIf(asRoot)("refuses another user's file, saying to chown it; root's own file is read", () => {
    const file = write('theirs.env', 'A=1', 0o600);
    chownSync(file, 65534, 65534);
    expect(() => readPrivateFile(file)).toThrow(
      /belongs to another user \(uid 65534\): refused \(chown \S+ /,
    );
    chownSync(file, 0, 0);
    expect(readPrivateFile(file)).toBe('A=1');
  });
});

describe('readSecretFile (a secret the operator named, X_FILE)', () => {
  it('reads a file no other user can read, through a link (secret mounts are links)', () => {
    const secret = path.join(dir, '..data-secret');
    writeFileSync(secret, 'k');
    chmodSync(secret, 0o440);
    const link = path.join(dir, 'secret');
    symlinkSync(secret, link);
    expect(readSecretFile(link)).toBe('k');
  });

  it('refuses a file every user can read, or what is not a regular file', () => {
    const file = path.join(dir, 'secret');
    writeFileSync(file, 'k');
    chmodSync(file, 0o644);
    expect(() => readSecretFile(file)).toThrow(`(chmod 600 ${file})`);
    expect(() => readSecretFile(dir)).toThrow(/not a regular file|EISDIR/);
  });
});
