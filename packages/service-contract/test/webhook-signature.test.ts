import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign, verify } from '../src/webhook-signature.js';

// Expected signatures come from the openssl CLI, not from node:crypto, so the vectors are independent of the
// code under test.
function opensslHmacHex(secret: string, signedPayload: Buffer): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
    input: signedPayload,
  }).toString();
  const hex = out.trim().split('= ').pop();
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new Error(`unexpected openssl output: ${out}`);
  return hex;
}

const secret = 'whsec_dGVzdC1zZWNyZXQtb25lLTMyLWJ5dGVzLWxvbmctaGVyZQ';
const oldSecret = 'whsec_b2xkLXNlY3JldC10aGF0LWlzLWJlaW5nLXJvdGF0ZWQtb3V0';
const t = 1_795_000_000;
const nowMs = t * 1000 + 12_000;
// Odd spacing and key order on purpose: the bytes are what is signed, not a re-serialization.
const body = Buffer.from(
  '{"id":"5f0c6b5e-3c1a-4c7e-9b53-2a1f0d7e8c11",  "type":"event","category":"payment.made","note":"caf\u00e9"}',
);
const vector = opensslHmacHex(secret, Buffer.concat([Buffer.from(`${t}.`), body]));
const oldVector = opensslHmacHex(oldSecret, Buffer.concat([Buffer.from(`${t}.`), body]));

describe('sign', () => {
  it('matches openssl for a Buffer and for the same bytes as a string', () => {
    expect(sign(secret, body, t)).toBe(`t=${t},v1=${vector}`);
    expect(sign(secret, body.toString('utf8'), t)).toBe(`t=${t},v1=${vector}`);
  });
  it('rejects a timestamp that is not unix seconds', () => {
    expect(() => sign(secret, body, 1.5)).toThrow(RangeError);
  });
});

describe('verify', () => {
  const header = `t=${t},v1=${vector}`;

  it('accepts the openssl vector', () => {
    expect(verify(body, header, [secret], { now: nowMs })).toEqual({ ok: true, t });
  });

  it('accepts any of several secrets (rotation), in either order', () => {
    expect(verify(body, `t=${t},v1=${oldVector}`, [secret, oldSecret], { now: nowMs })).toEqual({
      ok: true,
      t,
    });
    expect(verify(body, header, [oldSecret, secret], { now: nowMs })).toEqual({ ok: true, t });
    expect(verify(body, `t=${t},v1=${oldVector}`, [secret], { now: nowMs })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('accepts several v1 entries when one matches, and ignores other schemes', () => {
    const other = 'a'.repeat(64);
    expect(verify(body, `t=${t},v1=${other},v1=${vector}`, [secret], { now: nowMs }).ok).toBe(true);
    expect(verify(body, `t=${t},v0=abc,v1=${vector}`, [secret], { now: nowMs }).ok).toBe(true);
    expect(verify(body, [`t=${t},v1=${vector}`], [secret], { now: nowMs }).ok).toBe(true);
  });

  it('rejects a tampered body, including re-serialized JSON of the same value', () => {
    const tampered = Buffer.from(body.toString().replace('payment.made', 'payment.failed'));
    expect(verify(tampered, header, [secret], { now: nowMs })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    const reserialized = JSON.stringify(JSON.parse(body.toString()));
    expect(verify(reserialized, header, [secret], { now: nowMs }).ok).toBe(false);
  });

  it('rejects a tampered timestamp', () => {
    const moved = `t=${t + 1},v1=${vector}`;
    expect(verify(body, moved, [secret], { now: nowMs })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    // Same number spelled differently is still a different signed payload.
    expect(verify(body, `t=0${t},v1=${vector}`, [secret], { now: nowMs }).ok).toBe(false);
  });

  it('enforces the tolerance in both directions, 5 minutes by default', () => {
    const at = (seconds: number) => ({ now: (t + seconds) * 1000 });
    expect(verify(body, header, [secret], at(300)).ok).toBe(true);
    expect(verify(body, header, [secret], at(301))).toEqual({ ok: false, reason: 'timestamp_too_old' });
    expect(verify(body, header, [secret], at(-300)).ok).toBe(true);
    expect(verify(body, header, [secret], at(-301))).toEqual({ ok: false, reason: 'timestamp_in_future' });
    expect(verify(body, header, [secret], { now: (t + 61) * 1000, toleranceSeconds: 60 })).toEqual({
      ok: false,
      reason: 'timestamp_too_old',
    });
  });

  it.each([
    ['', 'missing_header'],
    [undefined, 'missing_header'],
    [null, 'missing_header'],
    ['   ', 'missing_header'],
    ['garbage', 'malformed_header'],
    [`v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=${t}`, 'malformed_header'],
    [`t=abc,v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=-5,v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=${t},t=${t},v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=${t},v1=${'A'.repeat(64)}`, 'malformed_header'],
    [`t=${t},v1=${'a'.repeat(63)}`, 'malformed_header'],
    [`t=${t},v1=`, 'malformed_header'],
    [`t=${t},=x`, 'malformed_header'],
    // Decision “Signature details”: the exact form; whitespace, an empty entry, a repeated header and an over-long one are refused.
    [`t=${t}, v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=${t},v1=${'a'.repeat(64)},`, 'malformed_header'],
    [[`t=${t}`, `v1=${'a'.repeat(64)}`], 'malformed_header'],
    [`t=${t},v1=${'a'.repeat(64)},v0=${'b'.repeat(1024)}`, 'malformed_header'],
  ] as const)('header %j is %s', (value, reason) => {
    expect(verify(body, value, [secret], { now: nowMs })).toEqual({ ok: false, reason });
  });

  it('never puts a secret or the expected signature in the result', () => {
    const result = verify(body, `t=${t},v1=${'b'.repeat(64)}`, [secret, oldSecret], { now: nowMs });
    const text = JSON.stringify(result);
    for (const leaked of [secret, oldSecret, vector, oldVector]) expect(text).not.toContain(leaked);
  });

  it('with no secrets, nothing verifies', () => {
    expect(verify(body, header, [], { now: nowMs })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('property: what sign produces verifies, and any other secret does not', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 512 }),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        (bytes, s1, s2, ts) => {
          const raw = Buffer.from(bytes);
          const signed = sign(s1, raw, ts);
          expect(verify(raw, signed, [s1], { now: ts * 1000 })).toEqual({ ok: true, t: ts });
          if (s1 !== s2) expect(verify(raw, signed, [s2], { now: ts * 1000 }).ok).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
