import path from 'node:path';
import { parseEnv } from 'node:util';
import { ensurePrivateDir, readPrivateFile, somethingAt, writePrivateFile } from '@booksync/private-files';
import { secretFileSetting } from './secret-files.js';
import { settingsSchema } from './settings.js';

// The deployment's settings for a second terminal. `booksync start` writes the booksync settings its
// environment set to BOOKSYNC_DATA_DIR/booksync.env, and every command reads that same file (BOOKSYNC_DATA_DIR
// from the environment, default .data), or the one BOOKSYNC_ENV_FILE names instead; no other file (a .env in
// the working directory only when BOOKSYNC_ENV_FILE names it). The file says where tokens and payloads go
// (TEMPORAL_ADDRESS, QBO_OAUTH_URL...), so it is read only if nobody else could have written or read it: a
// regular file, not a link, owned by this user (or root), mode 0600 or tighter, named or not. Variables of
// the environment always win over the file's.

const envFileName = 'booksync.env';

/** The env file of a data folder: where `booksync start` writes it and where commands read it. */
export function envFileIn(dataDir: string): string {
  return path.join(dataDir, envFileName);
}

/** Which env file a command reads, or null. */
export function envFileToRead(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.BOOKSYNC_ENV_FILE) return env.BOOKSYNC_ENV_FILE;
  const file = envFileIn(settingsSchema.shape.BOOKSYNC_DATA_DIR.parse(env.BOOKSYNC_DATA_DIR || undefined));
  // A link counts as there: it is refused when read, never silently skipped.
  return somethingAt(file) ? file : null;
}

/** Loads it into `env` (a named file that is missing is an error: the operator asked for it). */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = envFileToRead(env);
  if (file === null) return null;
  if (!somethingAt(file)) throw new Error(`BOOKSYNC_ENV_FILE: ${file} does not exist`);
  for (const [name, value] of Object.entries(parseEnv(readPrivateFile(file)))) {
    if (env[name] === undefined) env[name] = value;
  }
  return file;
}

/**
 * Keys that encrypt what the data folder (or Temporal) holds: never written into it, or a copy of the data
 * folder would carry what opens it. A second terminal needs them from its own environment or key file.
 */
export const keptOutOfDataFolder: readonly string[] = ['PAYLOAD_KEYS', 'QBO_TOKEN_KEY', 'XERO_TOKEN_KEY'];

/** A value as an env file's line quotes it. */
const quoted = (value: string) => (/['\n\r]/.test(value) ? JSON.stringify(value) : `'${value}'`);

/** The booksync settings the environment set, as an env file's lines (values quoted); secret files by path. */
export function envFileContents(env: NodeJS.ProcessEnv = process.env): string {
  const settings = Object.keys(settingsSchema.shape);
  const names = [
    ...new Set([...settings, ...settings.flatMap((name) => secretFileSetting(name) ?? [])]),
  ].filter((name) => env[name] !== undefined && env[name] !== '' && !keptOutOfDataFolder.includes(name));
  const lines = names.map((name) => `${name}=${quoted(env[name] as string)}`);
  return `# Written by booksync start: the settings of this deployment, for commands in another terminal.\n${lines.join('\n')}\n`;
}

/** Writes them to BOOKSYNC_DATA_DIR/booksync.env, mode 0600, never through a link. */
export function writeEnvFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = envFileIn(dataDir);
  writePrivateFile(file, envFileContents(env));
  return file;
}

/** `contents` with the one setting's line replaced (or added at the end); every other line kept as it is. */
export function withEnvSetting(contents: string, name: string, value: string): string {
  const line = `${name}=${quoted(value)}`;
  const lines = contents === '' ? [] : contents.replace(/\n$/, '').split('\n');
  const setsIt = (l: string) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(l);
  const at = lines.findIndex(setsIt);
  // A second line of it (the last one read wins) goes too: the file then says the value once.
  const kept = lines.filter((l) => !setsIt(l));
  kept.splice(at === -1 ? kept.length : at, 0, line);
  return `${kept.join('\n')}\n`;
}

/**
 * Sets one setting in an env file (created if missing), the others kept: read and written as every private
 * file (0600, never through a link). Returns whether the file changed (false when it already said so).
 */
export function writeEnvSetting(file: string, name: string, value: string): boolean {
  const before = somethingAt(file) ? readPrivateFile(file) : '';
  if (parseEnv(before)[name] === value) return false;
  ensurePrivateDir(path.dirname(file));
  writePrivateFile(file, withEnvSetting(before, name, value));
  return true;
}
