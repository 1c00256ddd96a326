import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { Party } from '../target-port.js';
import type { Ref } from './accounts.js';
import type { QboClient, QboEntity } from './http-client.js';
import { requestIdFor } from './keys.js';

// Customers and vendors. QBO's DisplayName is one namespace across customers, vendors and employees (6240,
// "Another customer, vendor or employee is already using this name", intuit/QuickBooks-V3-PHP-SDK#241), so a
// name is free only when none of the three holds it. Under 'match-existing' an existing QBO party of the
// wanted kind with the service party's DisplayName or (customers only: Vendor.PrimaryEmailAddr is not
// filterable, ruby/quickbooks-ruby#403) primary email is used; two or more candidates are refused (the
// accountant merges or renames them), never guessed. Under 'create' booksync uses only parties it created:
// its own carry `booksync <serviceId>` in Notes. A name taken elsewhere gets the service id appended, and
// if that is taken too (the same service party already a customer, now a vendor) the kind as well. Either
// way a missing party is created, with a requestid derived from the service id, so a retried create is the
// same create.

export type MatchingPolicy = 'create' | 'match-existing';

type PartyEntity = 'Customer' | 'Vendor';

/** The entities whose DisplayNames share one namespace in QBO. */
const nameHolders = ['Customer', 'Vendor', 'Employee'] as const;

const ownNote = (party: Party) => `booksync ${party.serviceId}`;

/** The DisplayNames booksync may give a party, in order of preference. */
function namesFor(entity: PartyEntity, party: Party): string[] {
  return [
    party.name,
    `${party.name} (${party.serviceId})`,
    `${party.name} (${party.serviceId} ${entity.toLowerCase()})`,
  ];
}

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
    const names = namesFor(entity, party);
    const holders = await this.client.select(entity, { DisplayName: names });
    const ours = holders.find(
      (p) =>
        p.Notes === ownNote(party) || (p.DisplayName !== party.name && names.includes(String(p.DisplayName))),
    );
    if (ours) return { value: ours.Id };
    const byName = holders.filter((p) => p.DisplayName === party.name);
    if (this.policy === 'match-existing') {
      const byEmail =
        party.email && entity === 'Customer'
          ? await this.client.select(entity, { PrimaryEmailAddr: party.email })
          : [];
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
    const displayName = await this.freeName(entity, names, holders);
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

  /** The first of the names no customer, vendor or employee holds (QBO compares them without case). */
  private async freeName(entity: PartyEntity, names: string[], own: QboEntity[]): Promise<string> {
    const others = await Promise.all(
      nameHolders
        .filter((holder) => holder !== entity)
        .map((holder) => this.client.select(holder, { DisplayName: names })),
    );
    const taken = new Set([...own, ...others.flat()].map((p) => String(p.DisplayName).toLowerCase()));
    const free = names.find((n) => !taken.has(n.toLowerCase()));
    if (!free)
      throw new TargetRefusedError(
        'quickbooks',
        `the names ${names.join(', ')} are all taken in QuickBooks by customers, vendors or employees; rename one`,
      );
    return free;
  }
}
