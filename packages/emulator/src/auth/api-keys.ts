import { createHash, randomBytes } from 'node:crypto';

/** Keys are shown once; only this hash is stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function newApiKey(): string {
  return `sk_test_${randomBytes(24).toString('base64url')}`;
}
