import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, type Harness, newLink, startHarness } from '@booksync/emulator/harness';
import { maxClockOffsetMs } from '@booksync/emulator/store/clock';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The emulator's clock is one for every organization (decision “Sandbox controls”), persisted with the data. A tenant's key must not
// move it, and no move may leave it invalid: before E17 `{days: 1e9}` from any key stored an offset past what a
// Date holds, and every write of every organization answered 500, restarts included.

const dayMs = 86_400_000;

describe('emulator sandbox clock (E17)', () => {
  let dir: string;
  let dbPath: string;
  let h: Harness;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'emulator-clock-'));
    dbPath = join(dir, 'emulator.sqlite');
    h = await startHarness({ dbPath });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A raw POST, so bodies JSON.stringify cannot write (1e999) reach the emulator. */
  const advanceRaw = async (bearer: string, body: string) => {
    const response = await fetch(`${h.baseUrl}/sandbox/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error: string; code?: string } };
  };
  const offset = async () => (await h.api('GET', '/sandbox/clock')).body.offsetMs as number;

  it("refuses a tenant's API key, every permission included (401), and leaves the clock alone", async () => {
    const before = await offset();
    for (const key of [h.keys.full, h.keys.noPermissions, (await h.newOrganization()).key]) {
      const answer = await advanceRaw(key, JSON.stringify({ days: 1 }));
      expect(answer).toEqual({ status: 401, body: { error: 'missing or unknown admin token' } });
    }
    expect((await h.as('not-a-key')('POST', '/sandbox/clock/advance', { days: 1 })).status).toBe(401);
    expect(await offset()).toBe(before);
    // Reading the clock stays a tenant's right.
    expect((await h.api('GET', '/sandbox/clock')).status).toBe(200);
  });

  it('refuses non-finite, negative, over-large and malformed moves with 400 INVALID_CLOCK_ADVANCE', async () => {
    const before = await offset();
    for (const body of [
      '{"days": 1e9}',
      '{"days": 1e999}',
      '{"seconds": 1e300}',
      '{"days": -1}',
      '{"seconds": -0.5}',
      '{"days": "3"}',
      '{"days": null}',
      '{}',
      `{"days": ${maxClockOffsetMs / dayMs + 1}}`,
    ]) {
      const answer = await advanceRaw(adminToken, body);
      expect({ body, status: answer.status, code: answer.body.code }).toEqual({
        body,
        status: 400,
        code: 'INVALID_CLOCK_ADVANCE',
      });
      expect(answer.body.error).toEqual(expect.any(String));
    }
    expect(await offset()).toBe(before);
  });

  it('bounds the total offset: moves that each fit but together exceed it are refused', async () => {
    const start = await offset();
    const ok = await h.admin('POST', '/sandbox/clock/advance', { days: 1000 });
    expect(ok.status).toBe(200);
    expect(ok.body.offsetMs).toBe(start + 1000 * dayMs);
    const tooFar = await h.admin('POST', '/sandbox/clock/advance', { days: 1000 });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body).toMatchObject({ code: 'INVALID_CLOCK_ADVANCE' });
    expect(tooFar.body.error).toContain(`${maxClockOffsetMs / dayMs} days`);
    expect(await offset()).toBe(start + 1000 * dayMs);
  });

  it("keeps every organization's writes working after the review's {days: 1e9}, from any bearer, and after a restart", async () => {
    for (const bearer of [h.keys.full, adminToken]) {
      expect((await advanceRaw(bearer, '{"days": 1e9}')).status).toBeGreaterThanOrEqual(400);
    }
    expect((await newLink(h.api, 1000)).id).toEqual(expect.any(String));
    const other = await h.newOrganization();
    expect((await other.call('POST', '/paymentLink', { name: 'x', requestedAmountCents: 5 })).status).toBe(
      201,
    );
    const before = await offset();
    await h.close();
    h = await startHarness({ dbPath });
    expect(await offset()).toBe(before);
    expect((await newLink(h.api, 1000)).id).toEqual(expect.any(String));
  });

  it('reads an out-of-bound offset left by an older emulator as 0, so its data file works again', async () => {
    await h.close();
    const db = new Database(dbPath);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'clock_offset_ms'").run(String(1e9 * dayMs));
    db.close();
    h = await startHarness({ dbPath });
    expect(await offset()).toBe(0);
    expect((await newLink(h.api, 1000)).id).toEqual(expect.any(String));
  });
});
