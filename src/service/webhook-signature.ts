import { createHmac, timingSafeEqual } from 'node:crypto';

// Spec 6.4: Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. The key is the
// whole secret string, prefix included (D36). This runs on every delivery, so it parses by hand and hashes
// the raw bytes without copying them into a new buffer.

export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_matching_signature';

export type SignatureVerification = { ok: true; t: number } | { ok: false; reason: SignatureFailureReason };

export interface VerifyOptions {
  /** Allowed distance between t and now, both directions. */
  toleranceSeconds?: number;
  /** Current time in unix milliseconds (Date.now() convention). */
  now?: number;
}

const SIGNATURE_BYTES = 32;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;
/**
 * Room for t and a dozen v1/v0 entries (rotation); a longer header is no sender following 6.4, and is refused
 * before any parsing or hashing (D36).
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 1024;
const WHITESPACE = /\s/;

function hmac(secret: string, t: number | string, rawBody: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}

/** The header value for a delivery attempt at unix second `t`. */
export function sign(secret: string, rawBody: Buffer | string, t: number): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError('t must be unix seconds');
  return `t=${t},v1=${hmac(secret, t, rawBody).toString('hex')}`;
}

interface ParsedHeader {
  t: string;
  signatures: Buffer[];
}

/** The exact form of 6.4 (D36): `key=value` entries joined by bare commas, no whitespace, no empty entry. */
function parseHeader(header: string): ParsedHeader | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH || WHITESPACE.test(header)) return undefined;
  let t: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't') {
      if (t !== undefined || !UNIX_SECONDS.test(value)) return undefined;
      t = value;
    } else if (key === 'v1') {
      if (!HEX_SIGNATURE.test(value)) return undefined;
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes (v0, future versions) are ignored, as receivers of versioned signatures do.
  }
  if (t === undefined || signatures.length === 0) return undefined;
  return { t, signatures };
}

/**
 * Verifies a delivery against any of `secrets` (several during rotation). The reason never carries a secret
 * or an expected signature.
 */
export function verify(
  rawBody: Buffer | string,
  header: string | readonly string[] | null | undefined,
  secrets: readonly string[],
  options: VerifyOptions = {},
): SignatureVerification {
  // One header per delivery (6.4). Node joins a repeated one with ', ', which the form refuses; a framework
  // that keeps them apart gives an array, refused the same way.
  const value = typeof header === 'string' ? header : header?.join(', ');
  if (value === undefined || value.trim() === '') return { ok: false, reason: 'missing_header' };
  const parsed = parseHeader(value);
  if (parsed === undefined) return { ok: false, reason: 'malformed_header' };

  const t = Number(parsed.t);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (nowSeconds - t > tolerance) return { ok: false, reason: 'timestamp_too_old' };
  if (t - nowSeconds > tolerance) return { ok: false, reason: 'timestamp_in_future' };

  for (const secret of secrets) {
    // Hash with t exactly as sent, so a t with leading zeros cannot verify under another spelling.
    const expected = hmac(secret, parsed.t, rawBody);
    for (const candidate of parsed.signatures) {
      if (candidate.length === SIGNATURE_BYTES && timingSafeEqual(expected, candidate))
        return { ok: true, t };
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}
