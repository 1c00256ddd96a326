import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/client.js';
import { FetchedLinks, rememberingLinks, serviceReferences } from '../../src/targets/service-references.js';

// The push names a link's invoice (its name, due date, customer) from what this worker's booking fetched,
// instead of asking the service again; a link no booking fetched is asked for once.

class CountingService {
  calls: string[] = [];
  readonly #links = new Map<string, Partial<PaymentLink>>();
  link(id: string, name: string): void {
    this.#links.set(id, { id, name, customerId: 'cus_1', dueDate: '2026-12-01' });
  }
  async getPaymentLink(id: string): Promise<PaymentLink> {
    this.calls.push(`getPaymentLink ${id}`);
    return this.#links.get(id) as PaymentLink;
  }
  async getCustomer(id: string) {
    this.calls.push(`getCustomer ${id}`);
    return { id, name: 'Bluebird Bakery', emails: [] };
  }
}

describe('the references a push names', () => {
  it('takes the link the booking fetched, and asks the service only for one it did not', async () => {
    const fake = new CountingService();
    fake.link('pl_1', 'INV-1001');
    fake.link('pl_2', 'INV-1002');
    const service = fake as unknown as ServiceClient;
    const fetched = new FetchedLinks();
    const booking = rememberingLinks(service, fetched);
    const references = serviceReferences(service, fetched);

    // The booking fetches the link (every time: state is fetched).
    expect((await booking.getPaymentLink('pl_1')).name).toBe('INV-1001');
    expect(fake.calls).toEqual(['getPaymentLink pl_1']);
    // The push reads it from there.
    expect(await references.paymentLink('pl_1')).toEqual({
      name: 'INV-1001',
      customerId: 'cus_1',
      dueDate: '2026-12-01',
    });
    expect(fake.calls).toEqual(['getPaymentLink pl_1']);
    // A link no booking of this worker fetched: asked once.
    expect((await references.paymentLink('pl_2')).name).toBe('INV-1002');
    await references.paymentLink('pl_2');
    expect(fake.calls).toEqual(['getPaymentLink pl_1', 'getPaymentLink pl_2']);
    // The booking's latest read wins: a renamed link is pushed under its new name.
    fake.link('pl_1', 'INV-1001-A');
    await booking.getPaymentLink('pl_1');
    expect((await references.paymentLink('pl_1')).name).toBe('INV-1001-A');
    // Every other call of the client passes through.
    expect((await booking.getCustomer('cus_1')).name).toBe('Bluebird Bakery');
  });

  it('reads the payout a payment is in fresh until it names one (a payment joins a payout after it was first read), then remembers it', async () => {
    let disbursement: { id: string } | null = null;
    let reads = 0;
    const service = {
      getPayment: async (id: string) => {
        reads += 1;
        return { id, disbursement };
      },
    } as unknown as ServiceClient;
    const references = serviceReferences(service);
    expect(await references.paymentPayout?.('pay_1')).toBeNull();
    expect(await references.paymentPayout?.('pay_1')).toBeNull();
    expect(reads).toBe(2);
    disbursement = { id: 'dis_1' };
    expect(await references.paymentPayout?.('pay_1')).toBe('dis_1');
    expect(await references.paymentPayout?.('pay_1')).toBe('dis_1');
    expect(reads).toBe(3);
  });

  it('keeps a bounded number of links, the latest fetched', () => {
    const fetched = new FetchedLinks(2);
    for (const id of ['pl_1', 'pl_2', 'pl_3']) fetched.remember({ id, name: id, dueDate: null });
    expect(fetched.get('pl_1')).toBeUndefined();
    expect(fetched.get('pl_3')?.name).toBe('pl_3');
  });
});
