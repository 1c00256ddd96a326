import { createHmac } from 'node:crypto';

// Spec 6.4: Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. The key is the
// whole secret string, prefix included (decision “Signature details”). This runs on every delivery, so it parses by hand and hashes
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

const SIGNATURE_HEX_LENGTH = 64;
/**
 * Room for t and a dozen v1/v0 entries (rotation); a longer header is no sender following 6.4, and is refused
 * before any parsing or hashing (decision “Signature details”).
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 1024;
const WHITESPACE = /\s/;

/** Hex straight from the digest: no intermediate Buffer (cheaper than digest() then toString). */
function hmacHex(secret: string, t: number | string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/** The header value for a delivery attempt at unix second `t`. */
export function sign(secret: string, rawBody: Buffer | string, t: number): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError('t must be unix seconds');
  return `t=${t},v1=${hmacHex(secret, t, rawBody)}`;
}

interface ParsedHeader {
  t: string;
  /** The v1 signatures as sent: 64 lowercase hex characters each. */
  signatures: string[];
}

/** Whether header[from, to) is all digits (plain loops, no regex or callback: this runs on every delivery). */
function allDigits(header: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = header.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Whether header[from, to) is all lowercase hex. */
function allLowerHex(header: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = header.charCodeAt(i);
    if ((c < 48 || c > 57) && (c < 97 || c > 102)) return false;
  }
  return true;
}

/**
 * The exact form of 6.4 (decision “Signature details”): `key=value` entries joined by bare commas, no whitespace, no empty entry, one
 * `t` of unix seconds, `v1` values of 64 lowercase hex characters. Scanned by index: the header is parsed
 * on every delivery, and the check must cost little beside its HMAC (the benchmark's ratio).
 */
function parseHeader(header: string): ParsedHeader | undefined {
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) return undefined;
  let t: string | undefined;
  const signatures: string[] = [];
  for (let start = 0; start <= header.length; ) {
    const comma = header.indexOf(',', start);
    const end = comma === -1 ? header.length : comma;
    const eq = header.indexOf('=', start);
    if (eq <= start || eq >= end) return undefined;
    const valueLength = end - eq - 1;
    if (eq - start === 1 && header.charCodeAt(start) === 116 /* t */) {
      if (t !== undefined || valueLength < 1 || valueLength > 12 || !allDigits(header, eq + 1, end))
        return undefined;
      t = header.slice(eq + 1, end);
    } else if (eq - start === 2 && header.startsWith('v1', start)) {
      if (valueLength !== SIGNATURE_HEX_LENGTH || !allLowerHex(header, eq + 1, end)) return undefined;
      signatures.push(header.slice(eq + 1, end));
    } else if (WHITESPACE.test(header.slice(start, end))) {
      // t and v1 are checked character by character above; any other entry must hold no whitespace either.
      return undefined;
    }
    if (comma === -1) break;
    start = comma + 1;
  }
  if (t === undefined || signatures.length === 0) return undefined;
  return { t, signatures };
}

/**
 * Equal 64-character hex strings, in time independent of where they differ: every character is compared.
 * (Hex on both sides: no Buffer per candidate, and the lengths are fixed by the parser.)
 */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
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
  if (value === undefined || value.length === 0 || (value.charCodeAt(0) <= 32 && value.trim() === ''))
    return { ok: false, reason: 'missing_header' };
  const parsed = parseHeader(value);
  if (parsed === undefined) return { ok: false, reason: 'malformed_header' };

  const t = Number(parsed.t);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (nowSeconds - t > tolerance) return { ok: false, reason: 'timestamp_too_old' };
  if (t - nowSeconds > tolerance) return { ok: false, reason: 'timestamp_in_future' };

  for (const secret of secrets) {
    // Hash with t exactly as sent, so a t with leading zeros cannot verify under another spelling.
    const expected = hmacHex(secret, parsed.t, rawBody);
    for (const candidate of parsed.signatures) if (sameHex(expected, candidate)) return { ok: true, t };
  }
  return { ok: false, reason: 'no_matching_signature' };
}
