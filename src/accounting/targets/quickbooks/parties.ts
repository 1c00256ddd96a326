import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { Party } from '../target-port.js';
import type { Ref } from './accounts.js';
import type { QboClient, QboEntity } from './http-client.js';
import { requestIdFor } from './keys.js';

// Customers and vendors. Under 'match-existing' an existing QBO party with the service party's DisplayName
// or primary email is used; two or more candidates are refused (the accountant merges or renames them), never
// guessed. Under 'create' booksync uses only parties it created: its own carry `booksync <serviceId>` in
// Notes; a DisplayName taken by someone else's party gets the service id appended (QBO's DisplayName is
// unique across customers, vendors and employees). Either way a missing party is created, with a requestid
// derived from the service id, so a retried create is the same create.

export type MatchingPolicy = 'create' | 'match-existing';

type PartyEntity = 'Customer' | 'Vendor';

const ownNote = (party: Party) => `booksync ${party.serviceId}`;

export class PartyDirectory {
  private readonly known = new RememberedLookups<string, Ref>();

  constructor(
    private readonly client: QboClient,
    private readonly policy: MatchingPolicy,
  ) {}

  ref(entity: PartyEntity, party: Party): Promise<Ref> {
    const cacheKey = `${entity}:${party.serviceId}`;
    return this.known.get(cacheKey, () => this.resolve(entity, party));
  }

  private async resolve(entity: PartyEntity, party: Party): Promise<Ref> {
    const byName = await this.client.select(entity, { DisplayName: party.name });
    const ours = byName.find((p) => p.Notes === ownNote(party));
    if (ours) return { value: ours.Id };
    const suffixed = `${party.name} (${party.serviceId})`;
    const [oursSuffixed] = await this.client.select(entity, { DisplayName: suffixed });
    if (oursSuffixed) return { value: oursSuffixed.Id };
    if (this.policy === 'match-existing') {
      const byEmail = party.email ? await this.client.select(entity, { PrimaryEmailAddr: party.email }) : [];
      const candidates = new Map<string, QboEntity>([...byName, ...byEmail].map((p) => [p.Id, p]));
      if (candidates.size > 1) {
        const ids = [...candidates.keys()].join(', ');
        throw new TargetRefusedError(
          'quickbooks',
          `${candidates.size} QuickBooks ${entity.toLowerCase()}s match ${party.name} <${party.email ?? 'no email'}> (Ids ${ids}); merge or rename them so one matches`,
        );
      }
      const [only] = candidates.values();
      if (only) return { value: only.Id };
    }
    const displayName = byName.length > 0 ? suffixed : party.name;
    const created = await this.client.write(
      entity,
      {
        DisplayName: displayName,
        Notes: ownNote(party),
        ...(party.email ? { PrimaryEmailAddr: { Address: party.email } } : {}),
      },
      { requestid: requestIdFor(`${entity}:${party.serviceId}`, 'create') },
    );
    return { value: created.Id };
  }
}
