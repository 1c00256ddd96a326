import type { VendorDeliveryMethod } from '../src/service/schemas/index.js';
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

export function createServiceRecordActivities(deps: ActivityDependencies): ServiceRecordActivities {
  return {
    /** Fetches the authorization (charge_authorization.* carries no data) and logs it; no ledger write. */
    async fetchChargeAuthorization({ chargeAuthorizationId, eventIds }): Promise<ChargeAuthorizationRecord> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { chargeAuthorizationId, eventIds });
        const authorization = await deps.service.getChargeAuthorization(chargeAuthorizationId);
        const record: ChargeAuthorizationRecord = {
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
        log.info(
          { customerId: record.customerId, status: record.status, methodType: record.methodType },
          'charge authorization recorded',
        );
        return record;
      });
    },

    /** Fetches the vendor after vendor.payout_method_updated and logs its current methods; no ledger write. */
    async fetchVendorDeliveryMethods({ vendorId, eventIds }): Promise<VendorRecord> {
      return translatingFailures(async () => {
        const log = activityLogger(deps, { vendorId, eventIds });
        const vendor = await deps.service.getVendor(vendorId);
        const record: VendorRecord = {
          vendorId,
          name: vendor.name,
          methods: vendor.vendorDeliveryMethods.map((method) => ({
            id: method.id,
            type: method.type,
            createdAt: method.createdAt,
            summary: summarize(method),
          })),
        };
        log.info(
          { methods: record.methods.map((m) => `${m.type}:${m.id}`) },
          'vendor delivery methods recorded',
        );
        return record;
      });
    },
  };
}
