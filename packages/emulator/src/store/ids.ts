import { randomBytes, randomUUID } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Decision “Identifiers”: a short type prefix plus random characters; opaque to everything outside the emulator. */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = '';
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return `${prefix}_${out}`;
}

export function newEventId(): string {
  return randomUUID();
}
