import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import type { ServiceClient } from '../service/client.js';
import type { ReferenceData } from './documents.js';
import type { Party } from './target-port.js';

type LinkReference = Awaited<ReturnType<ReferenceData['paymentLink']>>;

/** The payment links this worker's bookings fetched, the latest of each, kept for the push (bounded). */
export class FetchedLinks {
  readonly #links = new Map<string, LinkReference>();
  readonly limit: number;
  constructor(limit = 10_000) {
    this.limit = limit;
  }

  remember(link: Pick<PaymentLink, 'id' | 'name' | 'customerId' | 'dueDate'>): void {
    // Map order is insertion order: the link fetched longest ago goes first.
    this.#links.delete(link.id);
    this.#links.set(link.id, {
      name: link.name,
      customerId: link.customerId ?? null,
      dueDate: link.dueDate ?? null,
    });
    if (this.#links.size > this.limit) this.#links.delete(this.#links.keys().next().value as string);
  }

  get(id: string): LinkReference | undefined {
    return this.#links.get(id);
  }
}

/**
 * The service client the bookings use, remembering each payment link it fetches (getPaymentLink) in
 * `fetched`: the push then names the link's invoice (its name, due date and customer) from what the booking
 * read instead of asking the service again. Every call still goes to the service.
 */
export function rememberingLinks(service: ServiceClient, fetched: FetchedLinks): ServiceClient {
  return new Proxy(service, {
    get(target, property) {
      if (property === 'getPaymentLink') {
        return async (...args: Parameters<ServiceClient['getPaymentLink']>) => {
          const link = await target.getPaymentLink(...args);
          fetched.remember(link);
          return link;
        };
      }
      // The client's methods use its private fields: called on the client itself, not the proxy.
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * ReferenceData fetched from the service, each object once per process: names and numbers do not change
 * often, and a target matches parties by them only when it first creates or finds them. A link a booking
 * of this process fetched (`fetched`, rememberingLinks) is taken as the booking read it, unasked.
 */
export function serviceReferences(service: ServiceClient, fetched?: FetchedLinks): ReferenceData {
  const memo = new Map<string, Promise<unknown>>();
  const payouts = new Map<string, string>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    let found = memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = load();
      memo.set(key, found);
      // A failed fetch is not remembered: the next push asks again.
      found.catch(() => memo.delete(key));
    }
    return found;
  };
  return {
    paymentLink: (id) => {
      const booked = fetched?.get(id);
      if (booked) return Promise.resolve(booked);
      return once(`link:${id}`, async () => {
        const link = await service.getPaymentLink(id);
        return { name: link.name, customerId: link.customerId ?? null, dueDate: link.dueDate ?? null };
      });
    },
    customer: (id) =>
      once(`customer:${id}`, async (): Promise<Party> => {
        const customer = await service.getCustomer(id);
        return { serviceId: id, name: customer.name, email: customer.emails[0] ?? null };
      }),
    vendor: (id) =>
      once(`vendor:${id}`, async (): Promise<Party> => {
        const vendor = await service.getVendor(id);
        return { serviceId: id, name: vendor.name, email: vendor.email };
      }),
    // Not remembered: a payout is read once, when its document is made.
    payout: async (id) => ({ paymentIds: (await service.getDisbursement(id)).paymentIds }),
    // Read fresh until it names one (a payment joins a payout after it was first read), then remembered:
    // a payment's payout never changes.
    paymentPayout: async (id) => {
      const known = payouts.get(id);
      if (known) return known;
      const disbursementId = (await service.getPayment(id)).disbursement?.id ?? null;
      if (disbursementId) payouts.set(id, disbursementId);
      return disbursementId;
    },
    // The money's own references: immutable once the record exists, so each object is read once, fresh
    // (not through the link's memo, read before the payment was recorded).
    externalPayment: (linkId, id) =>
      once(`external-payment:${id}`, async () => {
        const link = await service.getPaymentLink(linkId);
        const found = link.externalPayments.find((p) => p.id === id);
        return found
          ? {
              externalReferenceId: found.externalReferenceId,
              serviceBankingTransferId: found.serviceBankingTransferId,
            }
          : null;
      }),
    checkApplication: (depositId, applicationId) =>
      once(`check-deposit:${depositId}:${applicationId ?? ''}`, async () => {
        const deposit = await service.getCheckDeposit(depositId);
        const application = deposit.applications.find((a) => a.id === applicationId);
        return {
          transferId: deposit.transferId,
          externalReferenceId: application?.externalReferenceId ?? null,
        };
      }),
    // A check is numbered when it is sent: a number not given yet is asked again next time.
    billPayment: async (id) => {
      const known = await once(`bill-payment:${id}`, async () => ({
        checkNumber: (await service.getBillPayment(id)).check?.checkNumber ?? null,
      }));
      if (known.checkNumber === null) memo.delete(`bill-payment:${id}`);
      return known;
    },
    bill: (id) =>
      once(`bill:${id}`, async () => {
        const bill = await service.getBill(id);
        return { invoiceNumber: bill.invoiceNumber, vendorId: bill.vendorId, dueDate: bill.dueDate ?? null };
      }),
  };
}
