import path from 'node:path';
import { readPrivateFile, somethingAt, writePrivateFile } from '@booksync/private-files';
import { z } from 'zod';

// The embedded stack's generated credentials, kept in one file next to the data (mode 0600): the demo
// organization's keys (the emulator stores only their hashes, and a restart must reuse them) and, when
// COMMAND_API_KEY is unset, the command API key, so the CLI on the same machine finds it. The one reader
// and writer of that file.

export const EmbeddedCredentials = z.object({
  organizationId: z.string().optional(),
  /** Every permission: what the worker uses. */
  apiKey: z.string().optional(),
  /** REST access without permissions, for trying MISSING_PERMISSION. */
  limitedApiKey: z.string().optional(),
  commandApiKey: z.string().optional(),
  /** The console's bookkeeper password, when CONSOLE_PASSWORD is unset. */
  consolePassword: z.string().optional(),
});
export type EmbeddedCredentials = z.infer<typeof EmbeddedCredentials>;

export function embeddedCredentialsPath(dataDir: string): string {
  return path.join(dataDir, 'embedded-credentials.json');
}

/** The stored credentials, or null when the file does not exist; a file that is not them is an error. */
export function readEmbeddedCredentials(dataDir: string): EmbeddedCredentials | null {
  const file = embeddedCredentialsPath(dataDir);
  if (!somethingAt(file)) return null;
  // Refused unless a regular file of this user only (no link planted in a shared data folder).
  const parsed = EmbeddedCredentials.safeParse(JSON.parse(readPrivateFile(file)));
  if (!parsed.success) throw new Error(`${file}: not booksync's embedded credentials`);
  return parsed.data;
}

/** Adds `fields` to the stored credentials (creating the file, owner-only). */
export function storeEmbeddedCredentials(dataDir: string, fields: EmbeddedCredentials): EmbeddedCredentials {
  const credentials = { ...readEmbeddedCredentials(dataDir), ...fields };
  writePrivateFile(embeddedCredentialsPath(dataDir), `${JSON.stringify(credentials, null, 2)}\n`);
  return credentials;
}
