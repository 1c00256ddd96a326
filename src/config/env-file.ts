import { existsSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../storage/private-files.js';
import { settingsSchema } from './settings.js';

// The deployment's settings for a second terminal. `booksync start` writes the booksync settings its
// environment set to BOOKSYNC_DATA_DIR/booksync.env (mode 0600: it may hold keys); every command reads, in
// order, BOOKSYNC_ENV_FILE, ./.env, then ./.data/booksync.env, the first that exists. Variables of the
// environment always win over the file's (Node's loadEnvFile sets only those not set).

export const defaultEnvFile = path.join('.data', 'booksync.env');

/** Which env file a command reads, or null. */
export function envFileToRead(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.BOOKSYNC_ENV_FILE) return env.BOOKSYNC_ENV_FILE;
  for (const candidate of ['.env', defaultEnvFile]) if (existsSync(candidate)) return candidate;
  return null;
}

/** Loads it into process.env (a named file that is missing is an error: the operator asked for it). */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = envFileToRead(env);
  if (file === null) return null;
  if (!existsSync(file)) throw new Error(`BOOKSYNC_ENV_FILE: ${file} does not exist`);
  process.loadEnvFile(file);
  return file;
}

/**
 * Keys that encrypt what the data folder (or Temporal) holds: never written into it, or a copy of the data
 * folder would carry what opens it. A second terminal needs them from its own environment or key file.
 */
export const keptOutOfDataFolder: readonly string[] = ['PAYLOAD_KEYS', 'QBO_TOKEN_KEY', 'XERO_TOKEN_KEY'];

/** The booksync settings the environment set, as an env file's lines (values quoted). */
export function envFileContents(env: NodeJS.ProcessEnv = process.env): string {
  const names = Object.keys(settingsSchema.shape).filter(
    (name) => env[name] !== undefined && env[name] !== '' && !keptOutOfDataFolder.includes(name),
  );
  const quoted = (value: string) => (/['\n\r]/.test(value) ? JSON.stringify(value) : `'${value}'`);
  const lines = names.map((name) => `${name}=${quoted(env[name] as string)}`);
  return `# Written by booksync start: the settings of this deployment, for commands in another terminal.\n${lines.join('\n')}\n`;
}

/** Writes them to BOOKSYNC_DATA_DIR/booksync.env, mode 0600. */
export function writeEnvFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = path.join(dataDir, 'booksync.env');
  writePrivateFile(file, envFileContents(env));
  return file;
}
