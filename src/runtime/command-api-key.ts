import { randomBytes } from 'node:crypto';
import { readEmbeddedCredentials, storeEmbeddedCredentials } from './embedded-credentials.js';

// The command API key of the embedded stack, when COMMAND_API_KEY is unset: generated once and kept with the
// embedded credentials, so the CLI on the same machine finds it and restarts keep it.

/** The command API key of the embedded stack, generated and stored on first use. */
export function ensureEmbeddedCommandApiKey(dataDir: string): string {
  const stored = readEmbeddedCredentials(dataDir)?.commandApiKey;
  if (stored !== undefined && stored.length >= 16) return stored;
  const commandApiKey = randomBytes(24).toString('base64url');
  storeEmbeddedCredentials(dataDir, { commandApiKey });
  return commandApiKey;
}

/** The stored key, if the embedded stack generated one. */
export function readEmbeddedCommandApiKey(dataDir: string): string | undefined {
  return readEmbeddedCredentials(dataDir)?.commandApiKey;
}
