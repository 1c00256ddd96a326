import type { Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { registerSearchAttributes } from '../../../src/runtime/temporal/register-search-attributes.js';
import { booksyncSearchAttributes } from '../../../src/workflow-safe/search-attributes.js';

// The races registerSearchAttributes tolerates, with a fake operator service answering as Temporal's
// frontend does. On SQL visibility the loser of a race for a pre-allocated column gets UNAVAILABLE
// ("Generated search attributes mapping unavailable.", go.temporal.io/server service/frontend
// operator_handler.go, addSearchAttributesSQL); on Elasticsearch, ALREADY_EXISTS.

function fakeConnection(failFirstAddWith: { code: number; message: string }, takenByOther: string[]) {
  const registered = new Set<string>();
  const adds: string[][] = [];
  let failed = false;
  const operatorService = {
    async listSearchAttributes() {
      return { customAttributes: Object.fromEntries([...registered].map((name) => [name, 2])) };
    },
    async addSearchAttributes(request: { searchAttributes: Record<string, number> }) {
      const names = Object.keys(request.searchAttributes);
      adds.push(names);
      if (!failed) {
        failed = true;
        // Another registrar won the race with some of them.
        for (const name of takenByOther) registered.add(name);
        throw Object.assign(new Error(failFirstAddWith.message), { code: failFirstAddWith.code });
      }
      for (const name of names) registered.add(name);
      return {};
    },
  };
  return { connection: { operatorService } as unknown as Connection, registered, adds };
}

describe('registerSearchAttributes under a race with another registrar', () => {
  const all = booksyncSearchAttributes.map((key) => key.name);
  const taken = ['SyncState', 'AmountCents'];

  it.each([
    [
      'SQL visibility: UNAVAILABLE',
      { code: 14, message: 'Generated search attributes mapping unavailable.' },
    ],
    ['Elasticsearch: ALREADY_EXISTS', { code: 6, message: 'Search attribute SyncState already exists.' }],
  ])('%s: lists again and adds only what is still missing', async (_, failure) => {
    const fake = fakeConnection(failure, taken);
    const added = await registerSearchAttributes(fake.connection, 'default');
    expect(fake.adds).toHaveLength(2);
    expect(fake.adds[0]!.sort()).toEqual([...all].sort());
    expect(fake.adds[1]!.sort()).toEqual(all.filter((name) => !taken.includes(name)).sort());
    expect(added.sort()).toEqual(all.filter((name) => !taken.includes(name)).sort());
    expect([...fake.registered].sort()).toEqual([...all].sort());
  });

  it('gives up on any other refusal at once', async () => {
    const fake = fakeConnection({ code: 7, message: 'Request unauthorized.' }, []);
    await expect(registerSearchAttributes(fake.connection, 'default')).rejects.toMatchObject({ code: 7 });
    expect(fake.adds).toHaveLength(1);
  });
});
