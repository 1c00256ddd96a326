import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

// Encrypted payloads: every payload booksync hands Temporal (workflow and activity inputs and
// results, signals, queries' answers, failures' messages and stacks) is sealed with AES-256-GCM before it
// leaves the process, so the Temporal server, its database and its Web UI hold ciphertext; people allowed to
// read them use the codec server (codec-server.ts). Search attributes and memos stay readable by design and
// carry ids, states, dates and amounts only.
//
// Keys: PAYLOAD_KEYS="<id>=<base64 of 32 bytes>,<id>=...", or PAYLOAD_KEYS_FILE (one `<id>=<key>` per line).
// The first key encrypts; every key decrypts, so a new key is added first and an old one stays listed until
// no history needs it (`booksync temporal payload-keys` lists the keys the namespace's histories, running and
// closed, still hold payloads of; payload-key-usage.ts). A payload written before encryption was turned on is
// read as it is, so those workflows keep running and replay; with PAYLOAD_ENCRYPTION_REQUIRED it is refused
// instead (`requireEncrypted`), so a plain payload someone put in Temporal (a signal sent without the keys, a
// downgraded writer) is never taken for booksync's own.

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
// A CommonJS package: its namespaces come from the default export under Node's ESM loader.
const { temporal } = proto;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

export class PayloadKeyError extends Error {
  override readonly name = 'PayloadKeyError';
}

/** A payload that is not encrypted, read while encryption is required (PAYLOAD_ENCRYPTION_REQUIRED). */
export class UnencryptedPayloadError extends Error {
  override readonly name = 'UnencryptedPayloadError';
}

export interface EncryptionCodecOptions {
  /**
   * Refuse to decode a payload that is not encrypted (PAYLOAD_ENCRYPTION_REQUIRED) instead of reading it as it
   * is. Default false: histories written before encryption was turned on keep replaying.
   */
  requireEncrypted?: boolean;
}

/** Parses `<id>=<base64>` pairs (commas or new lines); the first encrypts. One line per problem, never a key. */
export function parsePayloadKeys(text: string, source: string): PayloadKey[] {
  const keys: PayloadKey[] = [];
  for (const pair of text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith('#'))) {
    const eq = pair.indexOf('=');
    const id = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) {
      throw new PayloadKeyError(
        `${source}: each key is <id>=<base64 of 32 bytes>; an id is missing or invalid`,
      );
    }
    const key = Buffer.from(pair.slice(eq + 1).trim(), 'base64');
    if (key.length !== 32) {
      throw new PayloadKeyError(`${source}: key ${id} is ${key.length} bytes, not 32 (AES-256)`);
    }
    if (keys.some((k) => k.id === id)) throw new PayloadKeyError(`${source}: key id ${id} appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new PayloadKeyError(`${source}: no key given`);
  return keys;
}

/** The keys from the settings: PAYLOAD_KEYS, else PAYLOAD_KEYS_FILE; null when neither is set (no encryption). */
export function payloadKeysFrom(settings: {
  PAYLOAD_KEYS?: string | undefined;
  PAYLOAD_KEYS_FILE?: string | undefined;
}): PayloadKey[] | null {
  if (settings.PAYLOAD_KEYS) return parsePayloadKeys(settings.PAYLOAD_KEYS, 'PAYLOAD_KEYS');
  if (settings.PAYLOAD_KEYS_FILE) {
    let text: string;
    try {
      text = readFileSync(settings.PAYLOAD_KEYS_FILE, 'utf8');
    } catch (error) {
      throw new PayloadKeyError(
        `PAYLOAD_KEYS_FILE: cannot read ${settings.PAYLOAD_KEYS_FILE} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    return parsePayloadKeys(text, 'PAYLOAD_KEYS_FILE');
  }
  return null;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** AES-256-GCM over the whole serialized payload (metadata and data), the key id in the outer metadata. */
export class EncryptionCodec implements PayloadCodec {
  readonly #all: readonly PayloadKey[];
  readonly #encryptWith: PayloadKey;
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #requireEncrypted: boolean;

  constructor(keys: readonly PayloadKey[], options: EncryptionCodecOptions = {}) {
    if (keys.length === 0) throw new PayloadKeyError('at least one payload key is needed');
    this.#all = [...keys];
    this.#encryptWith = keys[0]!;
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
    this.#requireEncrypted = options.requireEncrypted ?? false;
  }

  /** The id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.#encryptWith.id;
  }

  /**
   * The same keys, reading a payload that is not encrypted as it is: for showing histories to a person (the
   * codec server), where a plain payload (one written before encryption, the details Temporal's own patch
   * markers carry) is already readable in Temporal and only displayed, never acted on.
   */
  forDisplay(): EncryptionCodec {
    return this.#requireEncrypted ? new EncryptionCodec(this.#all) : this;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.#encryptWith.key, iv);
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(this.#encryptWith.id) },
        data: new Uint8Array(sealed),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) {
        if (!this.#requireEncrypted) return payload;
        // The encoding names a converter (json/plain, binary/null...), never data; cut in case it is odd.
        const shown = encoding ? Buffer.from(encoding).toString().slice(0, 40) : '(none)';
        throw new UnencryptedPayloadError(
          `a payload that is not encrypted (encoding ${shown}) was refused: PAYLOAD_ENCRYPTION_REQUIRED=true reads only payloads encrypted with PAYLOAD_KEYS (${ENCRYPTED_ENCODING}); whoever wrote it had no keys`,
        );
      }
      const idBytes = payload.metadata?.[KEY_ID_METADATA];
      const id = idBytes ? Buffer.from(idBytes).toString() : '';
      const key = this.#keys.get(id);
      if (!key) {
        throw new PayloadKeyError(
          `a payload is encrypted with key ${id || '(no id)'}, which PAYLOAD_KEYS does not list: add it back`,
        );
      }
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new PayloadKeyError(`an encrypted payload is truncated (key ${id})`);
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/** The key ids of a list of payloads that are encrypted (for the operator's check before removing a key). */
export function encryptionKeyIds(payloads: readonly Payload[]): string[] {
  const ids = new Set<string>();
  for (const p of payloads) {
    const encoding = p.metadata?.encoding;
    if (encoding && Buffer.from(encoding).toString() === ENCRYPTED_ENCODING) {
      const id = p.metadata?.[KEY_ID_METADATA];
      if (id) ids.add(Buffer.from(id).toString());
    }
  }
  return [...ids];
}
