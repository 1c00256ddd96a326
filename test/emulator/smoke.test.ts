import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, newLink, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('smoke', () => {
  it('creates and fetches a link', async () => {
    const link = await newLink(h.api, 1000);
    expect(link.status).toBe('ACTIVE');
    const got = await h.api('GET', `/paymentLink/${link.id}`);
    expect(got.status).toBe(200);
    expect(got.body.requestedAmountCents).toBe(1000);
  });
});
