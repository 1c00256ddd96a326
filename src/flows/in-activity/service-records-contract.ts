// The contract between the charge authorization / vendor delivery methods workflows and their activities
// (implementation: src/flows/in-activity/service-records.ts). Nothing here touches the books: the workflows keep the
// fetched state visible (query `view`, search attributes) so no event of these categories is dropped.

export interface FetchRecordInput {
  /** Event ids that triggered this fetch, for the logs. */
  eventIds: string[];
}

export interface ChargeAuthorizationRecord {
  chargeAuthorizationId: string;
  customerId: string;
  active: boolean;
  /** ACTIVE, REVOKED (was authorized, no longer active) or AWAITING_CUSTOMER (decision “Charge authorizations”: no method yet). */
  status: 'ACTIVE' | 'REVOKED' | 'AWAITING_CUSTOMER';
  methodType: string | null;
  transactionLimitCents: number;
  expirationDate: string;
}

export interface VendorDeliveryMethodRecord {
  id: string;
  type: string;
  createdAt: string;
  /** Masked: only what the service shows (last four digits, the check address's city). */
  summary: string;
}

export interface VendorRecord {
  vendorId: string;
  name: string;
  methods: VendorDeliveryMethodRecord[];
}

export interface ServiceRecordActivities {
  fetchChargeAuthorization(
    input: FetchRecordInput & { chargeAuthorizationId: string },
  ): Promise<ChargeAuthorizationRecord>;
  fetchVendorDeliveryMethods(input: FetchRecordInput & { vendorId: string }): Promise<VendorRecord>;
}
