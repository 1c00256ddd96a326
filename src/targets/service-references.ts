import type { ServiceClient } from '../service/client.js';
import type { ReferenceData } from './documents.js';
import type { Party } from './target-port.js';

/**
 * ReferenceData fetched from the service, each object once per process: names and numbers do not change
 * often, and a target matches parties by them only when it first creates or finds them.
 */
export function serviceReferences(service: ServiceClient): ReferenceData {
  const memo = new Map<string, Promise<unknown>>();
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
    paymentLink: (id) =>
      once(`link:${id}`, async () => {
        const link = await service.getPaymentLink(id);
        return { name: link.name, customerId: link.customerId ?? null, dueDate: link.dueDate ?? null };
      }),
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
