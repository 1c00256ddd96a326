import { TargetRefusedError } from '../errors.js';
import type { Party } from '../target-port.js';
import type { TrytonSession } from './session.js';

// Customers and vendors as Tryton parties: booksync's own carry the identifier `booksync:<serviceId>`;
// under 'match-existing' one party of the same name or email is adopted (two or more are refused), else one
// is created. Found once per process (the session's party cache).

/** The Tryton party of a customer or vendor: booksync's own (by identifier), matched, or created. */
export async function partyOf(s: TrytonSession, party: Party): Promise<number> {
  const cached = s.parties.get(party.serviceId);
  if (cached !== undefined) return cached;
  const code = `booksync:${party.serviceId}`;
  const own = await s.rpc.model<number[]>(
    'party.party',
    'search',
    [['identifiers.code', '=', code]],
    0,
    2,
    null,
  );
  let id = own[0];
  if (id === undefined && s.options.matching === 'match-existing') {
    const byName = await s.rpc.model<number[]>(
      'party.party',
      'search',
      [['name', '=', party.name]],
      0,
      5,
      null,
    );
    const byEmail = party.email
      ? await s.rpc.model<number[]>(
          'party.party',
          'search',
          [
            [
              'contact_mechanisms',
              'where',
              [
                ['type', '=', 'email'],
                ['value', '=', party.email],
              ],
            ],
          ],
          0,
          5,
          null,
        )
      : [];
    const candidates = [...new Set([...byName, ...byEmail])];
    if (candidates.length > 1) {
      throw new TargetRefusedError(
        s.name,
        `${party.name} (${party.serviceId}) matches ${candidates.length} Tryton parties (ids ${candidates.join(', ')}); link one by adding the identifier ${code}`,
      );
    }
    id = candidates[0];
    if (id !== undefined) {
      await s.rpc.model('party.party', 'write', [id], { identifiers: [['create', [{ code }]]] });
    }
  }
  if (id === undefined) {
    [id] = await s.rpc.model<number[]>('party.party', 'create', [
      {
        name: party.name,
        addresses: [['create', [{}]]],
        identifiers: [['create', [{ code }]]],
        ...(party.email ? { contact_mechanisms: [['create', [{ type: 'email', value: party.email }]]] } : {}),
      },
    ]);
  }
  s.parties.set(party.serviceId, id as number);
  return id as number;
}

/** An invoice needs the party's address; a matched party may have none yet (the company's own has none). */
export async function addressOf(s: TrytonSession, party: number): Promise<number> {
  const read = async () =>
    (await s.rpc.model<{ addresses: number[] }[]>('party.party', 'read', [party], ['addresses']))[0]
      ?.addresses[0];
  const found = await read();
  if (found !== undefined) return found;
  await s.rpc.model('party.party', 'write', [party], { addresses: [['create', [{}]]] });
  const created = await read();
  if (created === undefined)
    throw new TargetRefusedError(s.name, `party ${party} has no address and none could be added`);
  return created;
}
