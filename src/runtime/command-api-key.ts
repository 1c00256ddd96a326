import { randomBytes } from 'node:crypto';
import {
  type EmbeddedCredentials,
  readEmbeddedCredentials,
  storeEmbeddedCredentials,
} from './embedded-credentials.js';

// The embedded stack's own secrets, when their settings are unset: the command API key (COMMAND_API_KEY) and
// the console's bookkeeper password (CONSOLE_PASSWORD), each generated once and kept with the embedded
// credentials, so the CLI on the same machine finds the key, the person at it finds the password, and
// restarts keep both. Two secrets apart: the key an integration holds does not open the console.

function ensureEmbeddedSecret(dataDir: string, field: 'commandApiKey' | 'consolePassword'): string {
  const stored = readEmbeddedCredentials(dataDir)?.[field];
  if (stored !== undefined && stored.length >= 16) return stored;
  const secret = randomBytes(24).toString('base64url');
  storeEmbeddedCredentials(dataDir, { [field]: secret } satisfies EmbeddedCredentials);
  return secret;
}

/** The command API key of the embedded stack, generated and stored on first use. */
export function ensureEmbeddedCommandApiKey(dataDir: string): string {
  return ensureEmbeddedSecret(dataDir, 'commandApiKey');
}

/** The console password of the embedded stack (account `bookkeeper`), generated and stored on first use. */
export function ensureEmbeddedConsolePassword(dataDir: string): string {
  return ensureEmbeddedSecret(dataDir, 'consolePassword');
}

/** The stored key, if the embedded stack generated one. */
export function readEmbeddedCommandApiKey(dataDir: string): string | undefined {
  return readEmbeddedCredentials(dataDir)?.commandApiKey;
}
