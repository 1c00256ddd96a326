import { createHash, timingSafeEqual } from 'node:crypto';
import type { ConsoleRole } from './sessions.js';

// Who may sign in to the console, and as what: the console password (CONSOLE_PASSWORD) or the command API key
// as the bookkeeper, who may act (retry, close the books); CONSOLE_READONLY_PASSWORD as a reader, who sees
// every page and changes nothing. Compared in constant time, every candidate each time.

export interface ConsoleCredentials {
  password?: string | undefined;
  readonlyPassword?: string | undefined;
  commandApiKey?: string | undefined;
}

export interface SignedInAs {
  role: ConsoleRole;
  credential: 'console password' | 'command API key' | 'read-only password';
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function credentialFor(credentials: ConsoleCredentials, given: string): SignedInAs | null {
  const candidates: [string | undefined, SignedInAs][] = [
    [credentials.password, { role: 'bookkeeper', credential: 'console password' }],
    [credentials.commandApiKey, { role: 'bookkeeper', credential: 'command API key' }],
    [credentials.readonlyPassword, { role: 'read-only', credential: 'read-only password' }],
  ];
  const givenDigest = digest(given);
  let found: SignedInAs | null = null;
  for (const [secret, as] of candidates) {
    if (secret === undefined || secret === '') continue;
    if (timingSafeEqual(digest(secret), givenDigest) && found === null) found = as;
  }
  return given === '' ? null : found;
}

/** Whether anyone can sign in at all (else the console answers that it needs a password set). */
export function anyCredential(credentials: ConsoleCredentials): boolean {
  return [credentials.password, credentials.commandApiKey, credentials.readonlyPassword].some(
    (c) => c !== undefined && c !== '',
  );
}
