import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../logging/logger.js';
import { EncryptionCodec, type PayloadKey, PayloadKeyError, payloadKeysFrom } from './payload-codec.js';

// How booksync's Temporal clients and workers encode payloads: as they are, or, with PAYLOAD_KEYS, encrypted
// by the codec with failures' messages and stacks encoded too. Every client and worker booksync runs takes
// its converter from here, so they all read what the others write. With PAYLOAD_ENCRYPTION_REQUIRED there is
// no plain converter: without keys the process does not start, and a plain payload read is refused.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The failure converter module a worker loads by path (in the workflow sandbox too) when encryption is on. */
export const encodedFailureConverterPath = path.join(
  root,
  'src',
  'workflow-safe',
  'encoded-failure-converter.ts',
);

export interface PayloadEncryption {
  codec: EncryptionCodec;
  /**
   * For clients (Schedules included, which a client creates) and workers: the codec, and the failure
   * converter by path (a worker's workflow bundle is built with it).
   */
  dataConverter: DataConverter & { payloadCodecs: EncryptionCodec[]; failureConverterPath: string };
}

export interface PayloadEncryptionOptions {
  /** PAYLOAD_ENCRYPTION_REQUIRED: no keys is an error, and a payload that is not encrypted is refused on decode. */
  required?: boolean;
}

/** Why a process with PAYLOAD_ENCRYPTION_REQUIRED and no key does not start (one line, for the operator). */
export const ENCRYPTION_REQUIRED_WITHOUT_KEYS =
  'PAYLOAD_ENCRYPTION_REQUIRED=true but no payload key is configured (PAYLOAD_KEYS or PAYLOAD_KEYS_FILE): booksync would give Temporal plain payloads, so it does not start. Set PAYLOAD_KEYS="<id>=<base64 of 32 bytes>" (e.g. `openssl rand -base64 32`), the same keys as the other booksync processes.';

/**
 * The converters for these keys; null when no key is configured (payloads go as they are), unless encryption
 * is required: then no keys throws, and the codec refuses to decode a payload that is not encrypted.
 */
export function payloadEncryption(
  keys: readonly PayloadKey[] | null,
  options: PayloadEncryptionOptions = {},
): PayloadEncryption | null {
  if (!keys) {
    if (options.required) throw new PayloadKeyError(ENCRYPTION_REQUIRED_WITHOUT_KEYS);
    return null;
  }
  const codec = new EncryptionCodec(keys, { requireEncrypted: options.required ?? false });
  return {
    codec,
    dataConverter: { payloadCodecs: [codec], failureConverterPath: encodedFailureConverterPath },
  };
}

/** The converters of these settings: PAYLOAD_KEYS or PAYLOAD_KEYS_FILE, and PAYLOAD_ENCRYPTION_REQUIRED. */
export function payloadEncryptionFrom(
  settings: Pick<Settings, 'PAYLOAD_KEYS' | 'PAYLOAD_KEYS_FILE' | 'PAYLOAD_ENCRYPTION_REQUIRED'>,
): PayloadEncryption | null {
  return payloadEncryption(payloadKeysFrom(settings), { required: settings.PAYLOAD_ENCRYPTION_REQUIRED });
}

let warnedUnencrypted = false;

/**
 * A production process (one that talks to a Temporal it did not start: TEMPORAL_ADDRESS) without payload
 * encryption says so once in its log: Temporal, its database and its Web UI then hold booksync's business data
 * in plain text. The embedded demo (booksync's own dev server on loopback) says nothing.
 */
export function warnWhenPayloadsUnencrypted(
  settings: Pick<Settings, 'TEMPORAL_ADDRESS'>,
  encryption: PayloadEncryption | null,
  logger: Logger,
): void {
  if (encryption || !settings.TEMPORAL_ADDRESS || warnedUnencrypted) return;
  warnedUnencrypted = true;
  logger.warn(
    'payloads are not encrypted: Temporal (its database, its Web UI, whoever reads its histories) holds the amounts, references and memos booksync gives it in plain text. Set PAYLOAD_KEYS on every booksync process, and PAYLOAD_ENCRYPTION_REQUIRED=true so one started without them refuses to start',
  );
}
