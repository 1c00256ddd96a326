// One row per endpoint, resource field, limit and error code of service-interface.md (1.0.0), with its
// section. spec-checklist.test.ts walks every row against the schemas, the operations table, the client and
// the OpenAPI document, so a change to the contract shows up as a failing row.

export type FieldRule = 'required' | 'nullable' | 'optional' | 'optional-nullable';

export interface EndpointRow {
  kind: 'endpoint';
  section: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** The client method and OpenAPI operationId. */
  operationId: string;
}

export interface FieldRow {
  kind: 'field';
  section: string;
  /** Export name in src/service/schemas. */
  schema: string;
  field: string;
  rule: FieldRule;
}

export interface LimitRow {
  kind: 'limit';
  section: string;
  limit: string;
  schema: string;
  /** Values of `field` merged into the schema's base example. */
  field: string;
  accepts: unknown[];
  rejects: unknown[];
}

export interface ErrorCodeRow {
  kind: 'error-code';
  section: string;
  code: string;
  status: number;
}

export type ChecklistRow = EndpointRow | FieldRow | LimitRow | ErrorCodeRow;

const endpoint = (
  section: string,
  method: EndpointRow['method'],
  path: string,
  operationId: string,
): EndpointRow => ({
  kind: 'endpoint',
  section,
  method,
  path,
  operationId,
});

const fields = (section: string, schema: string, rules: Record<string, FieldRule>): FieldRow[] =>
  Object.entries(rules).map(([field, rule]) => ({ kind: 'field', section, schema, field, rule }));

export const endpoints: EndpointRow[] = [
  endpoint('4.1', 'POST', '/serviceBanking/checkDeposits/{checkDepositId}/apply', 'applyCheckDeposit'),
  endpoint('4.2', 'POST', '/paymentLink/{paymentLinkId}/externalPayment', 'recordExternalPayment'),
  endpoint('4.3', 'PUT', '/paymentLink/{paymentLinkId}', 'updatePaymentLink'),
  endpoint('4.4', 'POST', '/payment/{paymentId}/refund', 'refundPayment'),
  endpoint('4.5', 'POST', '/paymentLink/{paymentLinkId}/send', 'sendPaymentLink'),
  endpoint('4.6', 'GET', '/customers', 'listCustomers'),
  endpoint('4.7', 'PUT', '/customer/{customerId}', 'updateCustomer'),
  endpoint('4.8', 'POST', '/customer/{customerId}/requestChargeAuthorization', 'requestChargeAuthorization'),
  endpoint('4.9', 'POST', '/file', 'uploadFile'),
  endpoint('4.10', 'PUT', '/vendor/{vendorId}/deliveryMethod/ach', 'updateVendorAchMethod'),
  endpoint('4.10', 'PUT', '/vendor/{vendorId}/payoutMethod/ach', 'updateVendorPayoutMethodAch'),
  endpoint('4.11', 'DELETE', '/vendor/{vendorId}', 'deleteVendor'),
  endpoint(
    '4.12 decision “Void an external payment”',
    'POST',
    '/paymentLink/{paymentLinkId}/externalPayment/{externalPaymentId}/void',
    'voidExternalPayment',
  ),
  endpoint('4.12 decision “Check deposits”', 'GET', '/serviceBanking/checkDeposits', 'listCheckDeposits'),
  endpoint('4.12 decision “Check deposits”', 'POST', '/serviceBanking/checkDeposits', 'depositCheck'),
  endpoint('4.12 6.1', 'POST', '/webhook', 'createWebhook'),
  endpoint('4.12 6.1', 'GET', '/webhook', 'listWebhooks'),
  endpoint('4.12 6.5', 'GET', '/billPayment/{billPaymentId}', 'getBillPayment'),
  endpoint('decision “Link endpoints beyond part 4”', 'POST', '/paymentLink', 'createPaymentLink'),
  endpoint(
    'decision “Link endpoints beyond part 4”',
    'GET',
    '/paymentLink/{paymentLinkId}',
    'getPaymentLink',
  ),
  endpoint('decision “Link endpoints beyond part 4”', 'GET', '/paymentLinks', 'listPaymentLinks'),
  endpoint(
    'decision “Link endpoints beyond part 4”',
    'POST',
    '/paymentLink/{paymentLinkId}/archive',
    'archivePaymentLink',
  ),
  endpoint('decision “Debit memos”', 'POST', '/paymentLink/{paymentLinkId}/debitMemo', 'recordDebitMemo'),
  endpoint(
    'decision “Debit memos”',
    'POST',
    '/paymentLink/{paymentLinkId}/debitMemo/{debitMemoId}/void',
    'voidDebitMemo',
  ),
  endpoint(
    'decision “Check deposits”',
    'GET',
    '/serviceBanking/checkDeposits/{checkDepositId}',
    'getCheckDeposit',
  ),
  endpoint('decision “Payment endpoints beyond part 4”', 'GET', '/payment/{paymentId}', 'getPayment'),
  endpoint('decision “Payment endpoints beyond part 4”', 'GET', '/payments', 'listPayments'),
  endpoint('decision “Disbursement statuses”', 'GET', '/disbursement/{disbursementId}', 'getDisbursement'),
  endpoint('decision “Disbursement statuses”', 'GET', '/disbursements', 'listDisbursements'),
  endpoint('decision “Customer endpoints beyond part 4”', 'POST', '/customer', 'createCustomer'),
  endpoint('decision “Customer endpoints beyond part 4”', 'GET', '/customer/{customerId}', 'getCustomer'),
  endpoint(
    'decision “Charge authorizations”',
    'GET',
    '/chargeAuthorization/{chargeAuthorizationId}',
    'getChargeAuthorization',
  ),
  endpoint('decision “Vendors”', 'POST', '/vendor', 'createVendor'),
  endpoint('decision “Vendors”', 'GET', '/vendor/{vendorId}', 'getVendor'),
  endpoint('decision “Bills”', 'POST', '/bill', 'createBill'),
  endpoint('decision “Bills”', 'GET', '/bill/{billId}', 'getBill'),
  endpoint('decision “Bill payments”', 'POST', '/bill/{billId}/billPayment', 'createBillPayment'),
  endpoint('decision “Bill payments”', 'POST', '/billPayment/{billPaymentId}/cancel', 'cancelBillPayment'),
];

export const resourceFields: FieldRow[] = [
  ...fields('2.1', 'PaymentLink', {
    id: 'required',
    name: 'required',
    requestedAmountCents: 'required',
    dueDate: 'optional-nullable',
    status: 'required',
    payments: 'required',
    externalPayments: 'required',
    debitMemos: 'required',
    debitMemoAmountCents: 'required',
    customerId: 'optional',
    url: 'required',
    completedAmountCents: 'required',
    feePassthroughPercent: 'nullable',
    creditCardEnabled: 'nullable',
    achEnabled: 'nullable',
    amountEditable: 'required',
    reusable: 'optional', // Decision “Reusable links”
  }),
  ...fields('2.2', 'Payment', {
    id: 'required',
    status: 'required',
    fees: 'required',
    amountInCents: 'required',
    chargedAmountInCents: 'required',
    platformFeeInCents: 'required',
    paymentLinkId: 'nullable',
    paymentMethod: 'nullable',
    disbursement: 'nullable',
    refunds: 'required',
    createdAt: 'required',
    estimatedDisbursementDate: 'nullable',
  }),
  ...fields('2.3', 'Fee', { type: 'required', amountInCents: 'required' }),
  ...fields('2.4', 'PaymentMethod', {
    id: 'required',
    type: 'required',
    achDetails: 'nullable',
    cardDetails: 'nullable',
    serviceBalanceDetails: 'nullable',
    billingDetails: 'nullable',
  }),
  ...fields('2.4', 'ACHDetails', {
    bankName: 'required',
    routingNumber: 'required',
    accountNumberLastFour: 'required',
  }),
  ...fields('2.4', 'CardDetails', {
    brand: 'nullable',
    last4: 'nullable',
    holderName: 'nullable',
    expMonth: 'nullable',
    expYear: 'nullable',
  }),
  ...fields('2.4', 'ServiceBalanceDetails', {
    nickname: 'nullable',
    accountNumberLastFour: 'nullable',
    spendableCents: 'nullable',
  }),
  ...fields('2.4', 'BillingDetails', {
    name: 'nullable',
    companyName: 'nullable',
    street: 'nullable',
    city: 'nullable',
    state: 'nullable',
    zip: 'nullable',
    email: 'nullable',
  }),
  ...fields('2.4 2.11', 'ChargeAuthorizationBillingDetails', {
    name: 'nullable',
    companyName: 'nullable',
    street: 'nullable',
    city: 'nullable',
    state: 'nullable',
    zip: 'nullable',
    countryCode: 'nullable',
  }),
  ...fields('2.5', 'Disbursement', {
    id: 'required',
    status: 'required',
    amountInCents: 'required',
    bankName: 'required',
    accountNumberLastFour: 'required',
    paymentIds: 'required',
    createdAt: 'nullable',
    paidAt: 'nullable',
  }),
  ...fields('2.6', 'Refund', {
    id: 'required',
    amountCents: 'required',
    refundDate: 'required',
    voided: 'required',
  }),
  ...fields('2.7', 'ExternalPayment', {
    id: 'required',
    amountCents: 'required',
    paidAt: 'required',
    voided: 'required',
    externalReferenceId: 'nullable',
    serviceBankingTransferId: 'nullable',
  }),
  ...fields('2.8', 'DebitMemo', {
    id: 'required',
    amountCents: 'required',
    description: 'required',
    voided: 'required',
    createdAt: 'required',
    externalReferenceId: 'nullable',
  }),
  ...fields('2.9', 'Customer', {
    id: 'required',
    name: 'required',
    emails: 'required',
    achEnabled: 'nullable',
    feePassthroughPercent: 'required',
  }),
  ...fields('2.10', 'File', { id: 'required', key: 'required', type: 'required', createdAt: 'required' }),
  ...fields('2.11 decision “Charge authorizations”', 'ChargeAuthorization', {
    id: 'required',
    customerId: 'required',
    paymentMethod: 'nullable',
    transactionLimitCents: 'required',
    expirationDate: 'required',
    active: 'required',
  }),
  ...fields('2.14 decision “Check deposits”', 'CheckDeposit', {
    id: 'required',
    transferId: 'required',
    amountCents: 'required',
    unappliedAmountCents: 'required',
    applications: 'required',
    status: 'required',
    memo: 'nullable',
    createdAt: 'required',
    clearedAt: 'nullable',
    returnedAt: 'nullable',
  }),
  ...fields('2.14 decision “Vendors”', 'Vendor', {
    id: 'required',
    name: 'required',
    email: 'nullable',
    vendorDeliveryMethods: 'required',
    createdAt: 'required',
  }),
  ...fields('2.14 decision “Vendors”', 'VendorDeliveryMethod', {
    id: 'required',
    type: 'required',
    achDetails: 'nullable',
    checkAddress: 'nullable',
    wireDetails: 'nullable',
    createdAt: 'required',
  }),
  ...fields('2.14 decision “Bills”', 'Bill', {
    id: 'required',
    vendorId: 'required',
    amountCents: 'required',
    dueDate: 'nullable',
    invoiceNumber: 'nullable',
    status: 'required',
    createdAt: 'required',
  }),
  ...fields('2.14 decision “Bill payments”', 'BillPayment', {
    id: 'required',
    billId: 'required',
    vendorId: 'required',
    amountCents: 'required',
    status: 'required',
    deliveryMethodId: 'required',
    deliveryMethodType: 'required',
    sentAt: 'nullable',
    completedAt: 'nullable',
    failureReason: 'nullable',
    check: 'optional',
    createdAt: 'required',
  }),
  ...fields('2.14 6.1 decision “Webhook subscription”', 'WebhookSubscription', {
    id: 'required',
    url: 'required',
    secret: 'nullable',
    createdAt: 'required',
  }),
  ...fields('6.2', 'EventEnvelope', {
    id: 'required',
    created_at: 'required',
    category: 'required',
    associated_object_type: 'required',
    associated_object_id: 'required',
    type: 'required',
  }),
  ...fields('7', 'ErrorBody', { error: 'required', code: 'optional' }),
  ...fields('4.1', 'ApplyCheckDepositRequest', {
    paymentLinkId: 'required',
    amountCents: 'optional',
    externalReferenceId: 'optional',
  }),
  ...fields('4.1', 'ExternalPaymentResult', { externalPayment: 'required', paymentLink: 'required' }),
  ...fields('4.3 decision “Updating a link”', 'UpdatePaymentLinkRequest', {
    requestedAmountCents: 'optional',
    name: 'optional',
    dueDate: 'optional-nullable',
    feePassthroughPercent: 'optional-nullable',
    creditCardEnabled: 'optional-nullable',
    achEnabled: 'optional-nullable',
    amountEditable: 'optional',
  }),
  ...fields('4.6', 'CustomerList', { customers: 'required', totalResults: 'required' }),
  ...fields('4.7', 'UpdateCustomerRequest', {
    name: 'optional',
    emails: 'optional',
    achEnabled: 'optional-nullable',
    feePassthroughPercent: 'optional-nullable',
  }),
];

const ref255 = 'r'.repeat(255);
export const limits: LimitRow[] = [
  {
    kind: 'limit',
    section: '4.1 8',
    limit: 'externalReferenceId at most 255 characters',
    schema: 'ApplyCheckDepositRequest',
    field: 'externalReferenceId',
    accepts: ['r', ref255],
    rejects: [`${ref255}r`, ''],
  },
  {
    kind: 'limit',
    section: '4.1 8',
    limit: 'amountCents at least 1',
    schema: 'ApplyCheckDepositRequest',
    field: 'amountCents',
    accepts: [1, 250_000],
    rejects: [0, -1, 1.5, '1'],
  },
  {
    kind: 'limit',
    section: '2.1 8',
    limit: 'feePassthroughPercent 0 to 100 (payment link)',
    schema: 'PaymentLink',
    field: 'feePassthroughPercent',
    accepts: [0, 100, null],
    rejects: [-1, 101, 33.3],
  },
  {
    kind: 'limit',
    section: '2.9 8',
    limit: 'feePassthroughPercent 0 to 100 (customer)',
    schema: 'Customer',
    field: 'feePassthroughPercent',
    accepts: [0, 100],
    rejects: [-1, 101, 0.5],
  },
  {
    kind: 'limit',
    section: '4.6 8',
    limit: 'page number at least 1',
    schema: 'ListCustomersQuery',
    field: 'page',
    accepts: [1, '7'],
    rejects: [0, '0', -1, 1.5, 'x'],
  },
  {
    kind: 'limit',
    section: '4.6 8',
    limit: 'results per page at least 1 (larger than 100 clamped)',
    schema: 'ListCustomersQuery',
    field: 'pageSize',
    accepts: [1, 100, 101, '5000'],
    rejects: [0, '0', 2.5],
  },
  {
    kind: 'limit',
    section: '1',
    limit: 'money is integer cents within int64 safe range',
    schema: 'Payment',
    field: 'amountInCents',
    accepts: [0, 1, Number.MAX_SAFE_INTEGER],
    rejects: [0.01, Number.MAX_SAFE_INTEGER + 2, '100', null],
  },
  {
    kind: 'limit',
    section: '1',
    limit: 'dates are YYYY-MM-DD',
    schema: 'ExternalPayment',
    field: 'paidAt',
    accepts: ['2026-01-31', '2028-02-29'],
    rejects: ['2026-1-31', '2026-02-29', '31/01/2026', '2026-01-31T00:00:00Z'],
  },
  {
    kind: 'limit',
    section: '6.2',
    limit: 'envelope type is the literal event',
    schema: 'EventEnvelope',
    field: 'type',
    accepts: ['event'],
    rejects: ['Event', 'payment.made'],
  },
];

export const errorCodes: ErrorCodeRow[] = [
  { kind: 'error-code', section: '7', code: 'REFERENCE_CONFLICT', status: 409 },
  { kind: 'error-code', section: '7', code: 'SHARED_ACCOUNT', status: 409 },
  { kind: 'error-code', section: '5 7', code: 'SERVICE_BANKING_NOT_ACTIVE', status: 403 },
  { kind: 'error-code', section: '5 7', code: 'MISSING_PERMISSION', status: 403 },
];

export const checklist: ChecklistRow[] = [...endpoints, ...resourceFields, ...limits, ...errorCodes];
