import { randomUUID } from 'node:crypto';
import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { Party } from '../target-port.js';
import type { Ref } from './accounts.js';
import { PAGE_SIZE, type QboClient, type QboEntity, selectQuery } from './http-client.js';
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

/** Parties a prefetch asks about in one batch (three queries of their names). */
const PREFETCH_CHUNK = 10;

/** QBO compares DisplayNames without case. */
const sameName = (name: string, displayName: unknown) =>
  name.toLowerCase() === String(displayName).toLowerCase();

/** The holder of one of the party's names that booksync created for it, if any. */
function ourParty(party: Party, names: string[], holders: QboEntity[]): QboEntity | undefined {
  return holders.find(
    (p) =>
      p.Notes === ownNote(party) || (p.DisplayName !== party.name && names.includes(String(p.DisplayName))),
  );
}

/** The first of the names none of the holders holds; undefined when all are taken. */
function firstFree(names: string[], holders: QboEntity[]): string | undefined {
  return names.find((n) => !holders.some((p) => sameName(n, p.DisplayName)));
}

function createBody(party: Party, displayName: string): Record<string, unknown> {
  return {
    DisplayName: displayName,
    Notes: ownNote(party),
    ...(party.email ? { PrimaryEmailAddr: { Address: party.email } } : {}),
  };
}

export class PartyDirectory {
  private readonly known = new RememberedLookups<string, Ref>();

  private readonly client: QboClient;
  private readonly policy: MatchingPolicy;
  constructor(client: QboClient, policy: MatchingPolicy) {
    this.client = client;
    this.policy = policy;
  }

  /**
   * A backlog's parties in a few requests instead of four each (its own kind, the two other name holders, the
   * create): for every party not known yet, the name holders of all three kinds in one batch of queries, then
   * the missing ones created in one batch (each create's body as ref() would send it; a refused one is left to
   * ref(), which gives the document its refusal). Under 'match-existing' parties are matched one by one.
   */
  async prefetch(entity: PartyEntity, parties: readonly Party[]): Promise<void> {
    if (this.policy !== 'create') return;
    const missing = [...new Map(parties.map((p) => [p.serviceId, p])).values()].filter(
      (p) => !this.known.has(`${entity}:${p.serviceId}`),
    );
    for (let i = 0; i < missing.length; i += PREFETCH_CHUNK) {
      const chunk = missing.slice(i, i + PREFETCH_CHUNK);
      const names = chunk.flatMap((p) => namesFor(entity, p));
      const answers = await this.client.batch(
        nameHolders.map((holder) => ({
          entity: holder,
          query: selectQuery(holder, { DisplayName: names }, { max: PAGE_SIZE }),
        })),
        randomUUID(),
      );
      const rows = new Map<string, QboEntity[]>();
      for (const [j, holder] of nameHolders.entries()) {
        const answer = answers[j];
        if (answer instanceof Error) throw answer;
        rows.set(holder, (answer as QboEntity[] | undefined) ?? []);
      }
      const creates: { party: Party; body: Record<string, unknown> }[] = [];
      for (const party of chunk) {
        const own = namesFor(entity, party);
        const holding = (holder: string) =>
          (rows.get(holder) ?? []).filter((r) => own.some((n) => sameName(n, r.DisplayName)));
        const holders = holding(entity);
        const ours = ourParty(party, own, holders);
        if (ours) {
          this.known.remember(`${entity}:${party.serviceId}`, { value: ours.Id });
          continue;
        }
        const others = nameHolders.filter((h) => h !== entity).flatMap(holding);
        const displayName = firstFree(own, [...holders, ...others]);
        if (displayName) creates.push({ party, body: createBody(party, displayName) });
      }
      if (creates.length === 0) continue;
      const ids = creates.map((c) => c.party.serviceId).join('\n');
      const created = await this.client.batch(
        creates.map((c) => ({ entity, body: c.body })),
        requestIdFor(`${entity}:${ids}`, 'create parties'),
      );
      for (const [j, { party }] of creates.entries()) {
        const answer = created[j];
        if (answer && !(answer instanceof Error) && !Array.isArray(answer))
          this.known.remember(`${entity}:${party.serviceId}`, { value: answer.Id });
      }
    }
  }

  ref(entity: PartyEntity, party: Party): Promise<Ref> {
    const cacheKey = `${entity}:${party.serviceId}`;
    return this.known.get(cacheKey, () => this.resolve(entity, party));
  }

  private async resolve(entity: PartyEntity, party: Party): Promise<Ref> {
    const names = namesFor(entity, party);
    const holders = await this.client.select(entity, { DisplayName: names });
    const ours = ourParty(party, names, holders);
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
    const created = await this.client.write(entity, createBody(party, displayName), {
      requestid: requestIdFor(`${entity}:${party.serviceId}`, 'create'),
    });
    return { value: created.Id };
  }

  /** The first of the names no customer, vendor or employee holds (QBO compares them without case). */
  private async freeName(entity: PartyEntity, names: string[], own: QboEntity[]): Promise<string> {
    const others = await Promise.all(
      nameHolders
        .filter((holder) => holder !== entity)
        .map((holder) => this.client.select(holder, { DisplayName: names })),
    );
    const free = firstFree(names, [...own, ...others.flat()]);
    if (!free)
      throw new TargetRefusedError(
        'quickbooks',
        `the names ${names.join(', ')} are all taken in QuickBooks by customers, vendors or employees; rename one`,
      );
    return free;
  }
}
