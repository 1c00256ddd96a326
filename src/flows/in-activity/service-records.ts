import type { VendorDeliveryMethod } from '@booksync/service-contract/schemas/index';
import { type ActivityDependencies, activityLogger } from './context.js';
import { translatingFailures } from './failures.js';
import type {
  ChargeAuthorizationRecord,
  ServiceRecordActivities,
  VendorRecord,
} from './service-records-contract.js';

function summarize(method: VendorDeliveryMethod): string {
  if (method.achDetails) {
    return `ACH ${method.achDetails.accountType} ****${method.achDetails.accountNumberLastFour}`;
  }
  if (method.checkAddress) return `check to ${method.checkAddress.city}, ${method.checkAddress.state}`;
  if (method.wireDetails) {
    return `wire ${method.wireDetails.countryCode} ****${method.wireDetails.accountNumberLastFour}`;
  }
  return method.type;
}

/**
 * A record flow's fetch: one service object turned into its record and logged with the fields `logged`
 * picks; no ledger write.
 */
function fetchRecord<Record>(
  deps: ActivityDependencies,
  ids: { [field: string]: unknown },
  fetch: () => Promise<Record>,
  logged: (record: Record) => [fields: { [field: string]: unknown }, message: string],
): Promise<Record> {
  return translatingFailures(async () => {
    const log = activityLogger(deps, ids);
    const record = await fetch();
    log.info(...logged(record));
    return record;
  });
}

export function createServiceRecordActivities(deps: ActivityDependencies): ServiceRecordActivities {
  return {
    /** Fetches the authorization (charge_authorization.* carries no data) and logs it. */
    async fetchChargeAuthorization({ chargeAuthorizationId, eventIds }): Promise<ChargeAuthorizationRecord> {
      return fetchRecord(
        deps,
        { chargeAuthorizationId, eventIds },
        async (): Promise<ChargeAuthorizationRecord> => {
          const authorization = await deps.service.getChargeAuthorization(chargeAuthorizationId);
          return {
            chargeAuthorizationId,
            customerId: authorization.customerId,
            active: authorization.active,
            status: authorization.active
              ? 'ACTIVE'
              : authorization.paymentMethod
                ? 'REVOKED'
                : 'AWAITING_CUSTOMER',
            methodType: authorization.paymentMethod?.type ?? null,
            transactionLimitCents: authorization.transactionLimitCents,
            expirationDate: authorization.expirationDate,
          };
        },
        ({ customerId, status, methodType }) => [
          { customerId, status, methodType },
          'charge authorization recorded',
        ],
      );
    },

    /** Fetches the vendor after vendor.payout_method_updated and logs its current methods. */
    async fetchVendorDeliveryMethods({ vendorId, eventIds }): Promise<VendorRecord> {
      return fetchRecord(
        deps,
        { vendorId, eventIds },
        async () => {
          const vendor = await deps.service.getVendor(vendorId);
          return {
            vendorId,
            name: vendor.name,
            methods: vendor.vendorDeliveryMethods.map((method) => ({
              id: method.id,
              type: method.type,
              createdAt: method.createdAt,
              summary: summarize(method),
            })),
          };
        },
        ({ methods }) => [
          { methods: methods.map((m) => `${m.type}:${m.id}`) },
          'vendor delivery methods recorded',
        ],
      );
    },
  };
}
