import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../storage/private-files.js';

// The embedded stack keeps its generated credentials in one file next to the data (embedded-emulator.ts
// writes it, mode 0600). The command API key joins them there when COMMAND_API_KEY is unset, so the CLI on
// the same machine finds it and restarts keep it.

export function embeddedCredentialsPath(dataDir: string): string {
  return path.join(dataDir, 'embedded-credentials.json');
}

/** The command API key of the embedded stack, generated and stored on first use. */
export function ensureEmbeddedCommandApiKey(dataDir: string): string {
  const file = embeddedCredentialsPath(dataDir);
  const credentials = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  if (typeof credentials.commandApiKey === 'string' && credentials.commandApiKey.length >= 16) {
    return credentials.commandApiKey;
  }
  const commandApiKey = randomBytes(24).toString('base64url');
  writePrivateFile(file, `${JSON.stringify({ ...credentials, commandApiKey }, null, 2)}\n`);
  return commandApiKey;
}

/** The stored key, if the embedded stack generated one. */
export function readEmbeddedCommandApiKey(dataDir: string): string | undefined {
  const file = embeddedCredentialsPath(dataDir);
  if (!existsSync(file)) return undefined;
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return typeof credentials.commandApiKey === 'string' ? credentials.commandApiKey : undefined;
}
