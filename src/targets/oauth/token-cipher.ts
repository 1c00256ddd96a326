import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

// A refresh token (QuickBooks, Xero) is a long-lived credential to the business's books: at rest it is sealed with
// AES-256-GCM under a key derived (scrypt) from a secret the environment provides, so a copied token file or
// database row is useless without that secret. Format: `v1.<salt>.<iv>.<tag>.<ciphertext>`, base64url parts.
//
// The salt is random per cipher (a process), the IV random per seal: a token rotated every hour is sealed
// without deriving again (scrypt is 50 ms of blocked event loop a derivation), and a token another process
// sealed is opened with its own salt's key, derived once and remembered.

/** Keys remembered per salt: this cipher's own and the few other processes' that sealed what it opens. */
const rememberedKeys = 8;

export class TokenCipher {
  readonly #secret: string;
  readonly #salt = randomBytes(16);
  readonly #keys = new Map<string, Buffer>();

  constructor(secret: string) {
    if (secret.length < 16) throw new Error('the token encryption secret must be at least 16 characters');
    this.#secret = secret;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key(this.#salt), iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [this.#salt, iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return ['v1', ...parts].join('.');
  }

  open(sealed: string): string {
    const [version, salt, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !salt || !iv || !tag || ciphertext === undefined)
      throw new Error('not a sealed token');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.#key(Buffer.from(salt, 'base64url')),
      Buffer.from(iv, 'base64url'),
    );
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  #key(salt: Buffer): Buffer {
    const name = salt.toString('base64url');
    let key = this.#keys.get(name);
    if (!key) {
      key = scryptSync(this.#secret, salt, 32);
      if (this.#keys.size >= rememberedKeys) this.#keys.delete(this.#keys.keys().next().value as string);
      this.#keys.set(name, key);
    }
    return key;
  }
}
