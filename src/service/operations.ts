import type { z } from 'zod';
import {
  ApplyCheckDepositRequest,
  Bill,
  BillPayment,
  ChargeAuthorization,
  CheckDeposit,
  CheckDepositList,
  CreateBillPaymentRequest,
  CreateBillRequest,
  CreateCustomerRequest,
  CreatePaymentLinkRequest,
  CreateVendorRequest,
  CreateWebhookRequest,
  Customer,
  CustomerList,
  DebitMemoResult,
  DepositCheckFields,
  Disbursement,
  DisbursementList,
  ExternalPaymentResult,
  File,
  ListCheckDepositsQuery,
  ListCustomersQuery,
  ListDisbursementsQuery,
  ListPaymentLinksQuery,
  ListPaymentsQuery,
  MessageResponse,
  Payment,
  PaymentLink,
  PaymentLinkList,
  PaymentList,
  RecordDebitMemoRequest,
  RecordExternalPaymentRequest,
  RefundPaymentRequest,
  RequestChargeAuthorizationRequest,
  SendPaymentLinkRequest,
  UpdateCustomerRequest,
  UpdatePaymentLinkRequest,
  UpdateVendorAchMethodRequest,
  UpdateVendorAchMethodResult,
  UploadFileFields,
  Vendor,
  WebhookList,
  WebhookSubscription,
} from './schemas/index.js';

// Every operation of the service in one table: the client calls through it, the OpenAPI document and the
// spec checklist are generated from it, so a path or status lives in one place (spec part 4, decisions D9-D30).

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * When the client may resend after a transient failure: `safe` (reads), `withReference` (a write the service
 * deduplicates by externalReferenceId, only when the caller gave one: 4.1 rule 5, D14, D15), `never`.
 */
export type RetryRule = 'safe' | 'withReference' | 'never';

export interface Operation<R extends z.ZodType = z.ZodType> {
  /** operationId in OpenAPI, and the client method's name. */
  id: string;
  method: HttpMethod;
  /** Path template with {param} segments. */
  path: string;
  /** Spec section or decision that defines it. */
  section: string;
  summary: string;
  body?: { schema: z.ZodType; contentType: 'application/json' | 'multipart/form-data' };
  query?: z.ZodObject;
  response: R;
  successStatus: 200 | 201;
  /** A create that answers 200 with the existing record when its externalReferenceId repeats (D14, D15). */
  repeatStatus?: 200;
  /** Error statuses this operation documents; every one answers the part 7 error body. */
  errorStatuses: readonly number[];
  retry: RetryRule;
  /** Under /serviceBanking: may answer 403 SERVICE_BANKING_NOT_ACTIVE (part 5 rule 4). */
  banking?: boolean;
}

function op<R extends z.ZodType>(operation: Operation<R>): Operation<R> {
  return operation;
}

const json = (schema: z.ZodType) => ({ schema, contentType: 'application/json' as const });
const multipart = (schema: z.ZodType) => ({ schema, contentType: 'multipart/form-data' as const });

// Part 7 shows statuses only for 4.1; for the rest, D38: 400 invalid, 401/403 auth, 404 missing, 500.
const read = [401, 403, 404, 500] as const;
const write = [400, 401, 403, 404, 500] as const;
const create = [400, 401, 403, 500] as const;
const withConflict = [400, 401, 403, 404, 409, 500] as const;

export const operations = {
  // Part 4
  applyCheckDeposit: op({
    id: 'applyCheckDeposit',
    method: 'POST',
    path: '/serviceBanking/checkDeposits/{checkDepositId}/apply',
    section: '4.1',
    summary: 'Apply a check deposit to a payment link',
    body: json(ApplyCheckDepositRequest),
    response: ExternalPaymentResult,
    successStatus: 200,
    errorStatuses: [400, 403, 404, 409, 500],
    retry: 'withReference',
    banking: true,
  }),
  recordExternalPayment: op({
    id: 'recordExternalPayment',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/externalPayment',
    section: '4.2',
    summary: 'Record an external payment on a payment link',
    body: json(RecordExternalPaymentRequest),
    response: ExternalPaymentResult,
    successStatus: 201,
    repeatStatus: 200,
    errorStatuses: withConflict,
    retry: 'withReference',
  }),
  updatePaymentLink: op({
    id: 'updatePaymentLink',
    method: 'PUT',
    path: '/paymentLink/{paymentLinkId}',
    section: '4.3',
    summary: 'Update a payment link',
    body: json(UpdatePaymentLinkRequest),
    response: PaymentLink,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  refundPayment: op({
    id: 'refundPayment',
    method: 'POST',
    path: '/payment/{paymentId}/refund',
    section: '4.4',
    summary: 'Refund a payment',
    body: json(RefundPaymentRequest),
    response: Payment,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  sendPaymentLink: op({
    id: 'sendPaymentLink',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/send',
    section: '4.5',
    summary: 'Send a payment link to recipients',
    body: json(SendPaymentLinkRequest),
    response: MessageResponse,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  listCustomers: op({
    id: 'listCustomers',
    method: 'GET',
    path: '/customers',
    section: '4.6',
    summary: 'List customers',
    query: ListCustomersQuery,
    response: CustomerList,
    successStatus: 200,
    errorStatuses: [400, 401, 403, 500],
    retry: 'safe',
  }),
  updateCustomer: op({
    id: 'updateCustomer',
    method: 'PUT',
    path: '/customer/{customerId}',
    section: '4.7',
    summary: 'Update a customer',
    body: json(UpdateCustomerRequest),
    response: Customer,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  requestChargeAuthorization: op({
    id: 'requestChargeAuthorization',
    method: 'POST',
    path: '/customer/{customerId}/requestChargeAuthorization',
    section: '4.8',
    summary: 'Request charge authorization from a customer',
    body: json(RequestChargeAuthorizationRequest),
    response: ChargeAuthorization,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  uploadFile: op({
    id: 'uploadFile',
    method: 'POST',
    path: '/file',
    section: '4.9',
    summary: 'Upload a file',
    body: multipart(UploadFileFields),
    response: File,
    successStatus: 201,
    errorStatuses: [400, 401, 403, 404, 409, 413, 500],
    retry: 'never',
  }),
  updateVendorAchMethod: op({
    id: 'updateVendorAchMethod',
    method: 'PUT',
    path: '/vendor/{vendorId}/deliveryMethod/ach',
    section: '4.10',
    summary: 'Update vendor ACH delivery method',
    body: json(UpdateVendorAchMethodRequest),
    response: UpdateVendorAchMethodResult,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  updateVendorPayoutMethodAch: op({
    id: 'updateVendorPayoutMethodAch',
    method: 'PUT',
    path: '/vendor/{vendorId}/payoutMethod/ach',
    section: '4.10',
    summary: 'Update vendor ACH delivery method (legacy alias)',
    body: json(UpdateVendorAchMethodRequest),
    response: UpdateVendorAchMethodResult,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  deleteVendor: op({
    id: 'deleteVendor',
    method: 'DELETE',
    path: '/vendor/{vendorId}',
    section: '4.11',
    summary: 'Delete a vendor',
    response: MessageResponse,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),

  // 4.12, with the paths and bodies of the decisions doc
  voidExternalPayment: op({
    id: 'voidExternalPayment',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/externalPayment/{externalPaymentId}/void',
    section: '4.12, D12',
    summary: 'Void an external payment (idempotent)',
    response: ExternalPaymentResult,
    successStatus: 200,
    errorStatuses: write,
    // Voiding twice answers the same body (D12), so resending is harmless.
    retry: 'safe',
  }),
  listCheckDeposits: op({
    id: 'listCheckDeposits',
    method: 'GET',
    path: '/serviceBanking/checkDeposits',
    section: '4.12, D16',
    summary: 'List check deposits',
    query: ListCheckDepositsQuery,
    response: CheckDepositList,
    successStatus: 200,
    errorStatuses: [400, 401, 403, 500],
    retry: 'safe',
    banking: true,
  }),
  getCheckDeposit: op({
    id: 'getCheckDeposit',
    method: 'GET',
    path: '/serviceBanking/checkDeposits/{checkDepositId}',
    section: 'D16',
    summary: 'Get a check deposit',
    response: CheckDeposit,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
    banking: true,
  }),
  depositCheck: op({
    id: 'depositCheck',
    method: 'POST',
    path: '/serviceBanking/checkDeposits',
    section: '4.12, D16',
    summary: 'Deposit a check',
    body: multipart(DepositCheckFields),
    response: CheckDeposit,
    successStatus: 201,
    errorStatuses: [400, 401, 403, 413, 500],
    retry: 'never',
    banking: true,
  }),
  createWebhook: op({
    id: 'createWebhook',
    method: 'POST',
    path: '/webhook',
    section: '4.12, 6.1, D30',
    summary: "Create the account's API webhook (replaces the existing one)",
    body: json(CreateWebhookRequest),
    response: WebhookSubscription,
    successStatus: 201,
    errorStatuses: create,
    retry: 'never',
  }),
  listWebhooks: op({
    id: 'listWebhooks',
    method: 'GET',
    path: '/webhook',
    section: '4.12, D30',
    summary: 'Get webhooks',
    response: WebhookList,
    successStatus: 200,
    errorStatuses: [401, 403, 500],
    retry: 'safe',
  }),
  getBillPayment: op({
    id: 'getBillPayment',
    method: 'GET',
    path: '/billPayment/{billPaymentId}',
    section: '4.12, D29',
    summary: 'Get a bill payment',
    response: BillPayment,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),

  // Decisions doc
  createPaymentLink: op({
    id: 'createPaymentLink',
    method: 'POST',
    path: '/paymentLink',
    section: 'D9',
    summary: 'Create a payment link',
    body: json(CreatePaymentLinkRequest),
    response: PaymentLink,
    successStatus: 201,
    errorStatuses: write,
    retry: 'never',
  }),
  getPaymentLink: op({
    id: 'getPaymentLink',
    method: 'GET',
    path: '/paymentLink/{paymentLinkId}',
    section: 'D9',
    summary: 'Get a payment link',
    response: PaymentLink,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  listPaymentLinks: op({
    id: 'listPaymentLinks',
    method: 'GET',
    path: '/paymentLinks',
    section: 'D9',
    summary: 'List payment links',
    query: ListPaymentLinksQuery,
    response: PaymentLinkList,
    successStatus: 200,
    errorStatuses: [400, 401, 403, 500],
    retry: 'safe',
  }),
  archivePaymentLink: op({
    id: 'archivePaymentLink',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/archive',
    section: 'D9',
    summary: 'Archive a payment link (archiving twice is a no-op)',
    response: PaymentLink,
    successStatus: 200,
    errorStatuses: write,
    retry: 'safe',
  }),
  recordDebitMemo: op({
    id: 'recordDebitMemo',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/debitMemo',
    section: 'D15',
    summary: 'Record a debit memo on a payment link',
    body: json(RecordDebitMemoRequest),
    response: DebitMemoResult,
    successStatus: 201,
    repeatStatus: 200,
    errorStatuses: withConflict,
    retry: 'withReference',
  }),
  voidDebitMemo: op({
    id: 'voidDebitMemo',
    method: 'POST',
    path: '/paymentLink/{paymentLinkId}/debitMemo/{debitMemoId}/void',
    section: 'D15',
    summary: 'Void a debit memo',
    response: DebitMemoResult,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
  getPayment: op({
    id: 'getPayment',
    method: 'GET',
    path: '/payment/{paymentId}',
    section: 'D21',
    summary: 'Get a payment',
    response: Payment,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  listPayments: op({
    id: 'listPayments',
    method: 'GET',
    path: '/payments',
    section: 'D21',
    summary: 'List payments, oldest first',
    query: ListPaymentsQuery,
    response: PaymentList,
    successStatus: 200,
    errorStatuses: [400, 401, 403, 500],
    retry: 'safe',
  }),
  getDisbursement: op({
    id: 'getDisbursement',
    method: 'GET',
    path: '/disbursement/{disbursementId}',
    section: 'D22',
    summary: 'Get a disbursement',
    response: Disbursement,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  listDisbursements: op({
    id: 'listDisbursements',
    method: 'GET',
    path: '/disbursements',
    section: 'D22',
    summary: 'List disbursements',
    query: ListDisbursementsQuery,
    response: DisbursementList,
    successStatus: 200,
    errorStatuses: [400, 401, 403, 500],
    retry: 'safe',
  }),
  createCustomer: op({
    id: 'createCustomer',
    method: 'POST',
    path: '/customer',
    section: 'D23',
    summary: 'Create a customer',
    body: json(CreateCustomerRequest),
    response: Customer,
    successStatus: 201,
    errorStatuses: create,
    retry: 'never',
  }),
  getCustomer: op({
    id: 'getCustomer',
    method: 'GET',
    path: '/customer/{customerId}',
    section: 'D23',
    summary: 'Get a customer',
    response: Customer,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  getChargeAuthorization: op({
    id: 'getChargeAuthorization',
    method: 'GET',
    path: '/chargeAuthorization/{chargeAuthorizationId}',
    section: 'D24',
    summary: 'Get a charge authorization',
    response: ChargeAuthorization,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  createVendor: op({
    id: 'createVendor',
    method: 'POST',
    path: '/vendor',
    section: 'D26',
    summary: 'Create a vendor',
    body: json(CreateVendorRequest),
    response: Vendor,
    successStatus: 201,
    errorStatuses: create,
    retry: 'never',
  }),
  getVendor: op({
    id: 'getVendor',
    method: 'GET',
    path: '/vendor/{vendorId}',
    section: 'D26',
    summary: 'Get a vendor',
    response: Vendor,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  createBill: op({
    id: 'createBill',
    method: 'POST',
    path: '/bill',
    section: 'D28',
    summary: 'Create a bill',
    body: json(CreateBillRequest),
    response: Bill,
    successStatus: 201,
    errorStatuses: write,
    retry: 'never',
  }),
  getBill: op({
    id: 'getBill',
    method: 'GET',
    path: '/bill/{billId}',
    section: 'D28',
    summary: 'Get a bill',
    response: Bill,
    successStatus: 200,
    errorStatuses: read,
    retry: 'safe',
  }),
  createBillPayment: op({
    id: 'createBillPayment',
    method: 'POST',
    path: '/bill/{billId}/billPayment',
    section: 'D29',
    summary: 'Pay a bill',
    body: json(CreateBillPaymentRequest),
    response: BillPayment,
    successStatus: 201,
    errorStatuses: write,
    retry: 'never',
  }),
  cancelBillPayment: op({
    id: 'cancelBillPayment',
    method: 'POST',
    path: '/billPayment/{billPaymentId}/cancel',
    section: 'D29',
    summary: 'Cancel a bill payment not yet sent',
    response: BillPayment,
    successStatus: 200,
    errorStatuses: write,
    retry: 'never',
  }),
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;

/** Path parameter names of a template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** Fills a path template; every id is URL-encoded because ids are opaque (D1). */
export function fillPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
}
