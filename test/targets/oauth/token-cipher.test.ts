import { describe, expect, it } from 'vitest';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';

// A refresh token at rest: AES-256-GCM under a key derived from the environment's secret, a random IV per
// seal, a salt per cipher, keys remembered per salt.

const secret = 'a-secret-of-at-least-sixteen';
const parts = (sealed: string) => {
  const [version, salt, iv, tag, ciphertext] = sealed.split('.');
  return { version, salt, iv, tag, ciphertext };
};

describe('TokenCipher', () => {
  it('seals so the token cannot be read, and opens what it sealed', () => {
    const cipher = new TokenCipher(secret);
    const sealed = cipher.seal('rt-the-refresh-token');
    expect(sealed).not.toContain('rt-the-refresh-token');
    expect(parts(sealed).version).toBe('v1');
    expect(cipher.open(sealed)).toBe('rt-the-refresh-token');
  });

  it('gives every seal its own IV: the same token sealed twice reads differently', () => {
    const cipher = new TokenCipher(secret);
    const [a, b] = [cipher.seal('rt-same'), cipher.seal('rt-same')];
    expect(parts(a).iv).not.toBe(parts(b).iv);
    expect(parts(a).ciphertext).not.toBe(parts(b).ciphertext);
    expect(parts(a).salt).toBe(parts(b).salt);
  });

  it("opens what another process's cipher sealed under the same secret (its own salt), and nothing under another", () => {
    const sealedElsewhere = new TokenCipher(secret).seal('rt-from-another-worker');
    const here = new TokenCipher(secret);
    expect(parts(sealedElsewhere).salt).not.toBe(parts(here.seal('x')).salt);
    expect(here.open(sealedElsewhere)).toBe('rt-from-another-worker');
    expect(() => new TokenCipher('another-secret-entirely').open(sealedElsewhere)).toThrow();
  });

  it('refuses a changed token (the tag), a malformed one, and a short secret', () => {
    const cipher = new TokenCipher(secret);
    const { salt, iv, tag, ciphertext } = parts(cipher.seal('rt-abc'));
    const flipped = Buffer.from(ciphertext as string, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(() => cipher.open(['v1', salt, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => cipher.open('v2.a.b.c.d')).toThrow('not a sealed token');
    expect(() => new TokenCipher('too-short')).toThrow('at least 16 characters');
  });

  it('derives a key once per salt: a thousand seals and opens take far less than a thousand derivations', () => {
    const cipher = new TokenCipher(secret);
    const others = Array.from({ length: 3 }, (_, i) => new TokenCipher(secret).seal(`rt-other-${i}`));
    const started = performance.now();
    for (let i = 0; i < 1_000; i++) {
      expect(cipher.open(cipher.seal(`rt-${i}`))).toBe(`rt-${i}`);
      expect(cipher.open(others[i % 3] as string)).toBe(`rt-other-${i % 3}`);
    }
    // A scrypt derivation is about 50 ms: 2,000 of them would be well over a minute.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
