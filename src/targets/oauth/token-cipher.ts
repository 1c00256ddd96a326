import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

// A refresh token (QuickBooks, Xero) is a long-lived credential to the business's books: at rest it is sealed with
// AES-256-GCM under a key derived (scrypt, random salt per seal) from a secret the environment provides,
// so a copied token file or database row is useless without that secret. Format:
// `v1.<salt>.<iv>.<tag>.<ciphertext>`, base64url parts.

export class TokenCipher {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('the token encryption secret must be at least 16 characters');
  }

  seal(plaintext: string): string {
    const salt = randomBytes(16);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(salt), iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [salt, iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
    return ['v1', ...parts].join('.');
  }

  open(sealed: string): string {
    const [version, salt, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !salt || !iv || !tag || ciphertext === undefined)
      throw new Error('not a sealed token');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.key(Buffer.from(salt, 'base64url')),
      Buffer.from(iv, 'base64url'),
    );
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  private key(salt: Buffer): Buffer {
    return scryptSync(this.secret, salt, 32);
  }
}
