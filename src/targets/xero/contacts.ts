import type { Contact } from 'xero-node';
import { TargetRefusedError } from '../errors.js';
import { RememberedLookups } from '../remembered-lookups.js';
import type { Party } from '../target-port.js';
import type { XeroClient } from './client.js';
import { idempotencyKey, literal } from './keys.js';

// Customers and vendors are Xero Contacts. booksync's own carry the service's id as ContactNumber (Xero's
// field for an external system's reference), so they are found again by it. Under 'match-existing' a contact
// with the party's Name or EmailAddress is used when it is the only one; two or more are refused with their
// ids, never guessed. A missing contact is created (Idempotency-Key from the service id); Xero's contact
// names are unique, so a name someone else's contact holds gets ` (<serviceId>)`. Documents with nobody to
// name (the card processor's fee, a link without a customer) use booksync's own fixed contacts.

export type MatchingPolicy = 'create' | 'match-existing';

export const processor: Party = {
  serviceId: 'booksync-processor',
  name: 'Card processor (booksync)',
  email: null,
};
export const unnamedCustomer: Party = {
  serviceId: 'booksync-unnamed',
  name: 'booksync unnamed customer',
  email: null,
};

export class ContactDirectory {
  private readonly known = new RememberedLookups<string, string>();

  private readonly client: XeroClient;
  private readonly policy: MatchingPolicy;
  constructor(client: XeroClient, policy: MatchingPolicy) {
    this.client = client;
    this.policy = policy;
  }

  /** The ContactID of a party, found or created. */
  id(party: Party): Promise<string> {
    return this.known.get(party.serviceId, () => this.resolve(party));
  }

  /**
   * A backlog's parties in a few requests instead of three per party: their own contacts by ContactNumber,
   * then the others by Name (and EmailAddress under 'match-existing'), then one create of what is missing.
   * A party this cannot settle (an ambiguous match, a refused create) is left to id(), one by one.
   */
  async prefetch(parties: Party[]): Promise<void> {
    const missing = [...new Map(parties.map((p) => [p.serviceId, p])).values()].filter(
      (p) => !this.known.has(p.serviceId),
    );
    const settle = (party: Party, contactID: string) => this.known.remember(party.serviceId, contactID);
    for (let i = 0; i < missing.length; i += 20) {
      const chunk = missing.slice(i, i + 20);
      const ours = await this.find(chunk.map((p) => `ContactNumber==${literal(p.serviceId)}`).join(' OR '));
      for (const party of chunk) {
        const contact = ours.find((c) => c.contactNumber === party.serviceId);
        if (contact?.contactID) settle(party, contact.contactID);
      }
      const rest = chunk.filter((p) => !this.known.has(p.serviceId));
      if (rest.length === 0) continue;
      const byName = await this.find(rest.map((p) => `Name==${literal(p.name)}`).join(' OR '));
      const withEmail = rest.filter((p) => p.email);
      const byEmail =
        this.policy === 'match-existing' && withEmail.length > 0
          ? await this.find(withEmail.map((p) => `EmailAddress==${literal(p.email as string)}`).join(' OR '))
          : [];
      const create: Party[] = [];
      for (const party of rest) {
        const named = byName.filter((c) => c.name === party.name);
        if (this.policy === 'match-existing') {
          const mailed = party.email ? byEmail.filter((c) => c.emailAddress === party.email) : [];
          const candidates = new Set([...named, ...mailed].map((c) => c.contactID as string));
          if (candidates.size === 1) settle(party, [...candidates][0] as string);
          if (candidates.size > 0) continue;
        }
        create.push(party);
      }
      if (create.length === 0) continue;
      const contacts = create.map((party) =>
        this.newContact(
          party,
          byName.some((c) => c.name === party.name),
        ),
      );
      const body = await this.client.call('createContacts', (api, tenant) =>
        api.createContacts(
          tenant,
          { contacts },
          false,
          idempotencyKey(tenant, 'contacts', 'create', contacts),
        ),
      );
      for (const created of body.contacts ?? []) {
        const party = create.find((p) => p.serviceId === created.contactNumber);
        if (party && created.contactID && (created.validationErrors?.length ?? 0) === 0)
          settle(party, created.contactID);
      }
    }
  }

  private newContact(party: Party, nameTaken: boolean) {
    return {
      name: nameTaken ? `${party.name} (${party.serviceId})` : party.name,
      contactNumber: party.serviceId,
      ...(party.email ? { emailAddress: party.email } : {}),
    };
  }

  private async find(where: string): Promise<Contact[]> {
    const body = await this.client.call('getContacts', (api, tenant) =>
      api.getContacts(tenant, undefined, where),
    );
    return body.contacts ?? [];
  }

  private async resolve(party: Party): Promise<string> {
    const [ours] = await this.find(`ContactNumber==${literal(party.serviceId)}`);
    if (ours?.contactID) return ours.contactID;
    const byName = await this.find(`Name==${literal(party.name)}`);
    if (this.policy === 'match-existing') {
      const byEmail = party.email ? await this.find(`EmailAddress==${literal(party.email)}`) : [];
      const candidates = new Map([...byName, ...byEmail].map((c) => [c.contactID as string, c]));
      if (candidates.size > 1) {
        throw new TargetRefusedError(
          'xero',
          `${candidates.size} Xero contacts match ${party.name} <${party.email ?? 'no email'}> (ContactIDs ${[...candidates.keys()].join(', ')}); merge or rename them so one matches`,
        );
      }
      const [only] = candidates.keys();
      if (only) return only;
    }
    const contact = this.newContact(party, byName.length > 0);
    const body = await this.client.call('createContacts', (api, tenant) =>
      api.createContacts(
        tenant,
        { contacts: [contact] },
        false,
        idempotencyKey(tenant, `contact:${party.serviceId}`, 'create', contact),
      ),
    );
    const created = body.contacts?.[0];
    if (!created?.contactID || (created.validationErrors?.length ?? 0) > 0) {
      const messages = (created?.validationErrors ?? []).map((v) => v.message).join('; ');
      throw new TargetRefusedError('xero', `ValidationException: ${messages || 'contact not created'}`);
    }
    return created.contactID;
  }
}
