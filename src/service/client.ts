import { SERVICE_BASE_URLS, type ServiceEnvironment } from '@booksync/service-contract/base-urls';
import { operations } from '@booksync/service-contract/operations';
import type {
  ApplyCheckDepositRequest,
  Bill,
  BillPayment,
  ChargeAuthorization,
  CheckDeposit,
  CheckDepositList,
  CreateBillRequest,
  CreateCustomerRequest,
  CreatePaymentLinkRequest,
  CreateVendorRequest,
  CreateWebhookRequest,
  Customer,
  CustomerList,
  DebitMemoResult,
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
  Vendor,
  WebhookList,
  WebhookSubscription,
} from '@booksync/service-contract/schemas/index';
import type { z } from 'zod';
import { type Logger, silentLogger } from '../logging/logger.js';
import { DEFAULT_RETRY, type RetryOptions } from './backoff.js';
import { everyItem } from './paginate.js';
import { Transport } from './transport.js';
import { type DepositCheckInput, toBlob, type UploadFileInput } from './uploads.js';

// The typed client: one method per operation of spec part 4 and of the decisions doc. Method names are the
// operation ids of packages/service-contract/src/operations.ts and of the OpenAPI document.

export interface ServiceClientOptions {
  apiKey: string;
  /** Chooses a base URL from SERVICE_BASE_URLS; ignored when baseUrl is given. */
  environment?: ServiceEnvironment;
  /** An explicit base URL, such as the emulator's. */
  baseUrl?: string;
  logger?: Logger;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** For tests and instrumentation; defaults to global fetch. */
  fetch?: typeof fetch;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

type In<T extends z.ZodType> = z.input<T>;

/** A list query as callers write it: page numbers are numbers (the schema also coerces query-string text). */
type ListQuery<T extends z.ZodType> = Omit<z.input<T>, 'page' | 'pageSize'> & {
  page?: number;
  pageSize?: number;
};

export class ServiceClient {
  readonly baseUrl: string;
  readonly #transport: Transport;

  constructor(options: ServiceClientOptions) {
    if (options.apiKey === '') throw new TypeError('apiKey is required');
    this.baseUrl = options.baseUrl ?? SERVICE_BASE_URLS[options.environment ?? 'sandbox'];
    this.#transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: this.baseUrl,
      logger: options.logger ?? silentLogger,
      timeoutMs: options.timeoutMs ?? 10_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      fetch: options.fetch ?? globalThis.fetch,
    });
  }

  // Part 4

  /** 4.1. Retried on transient failures only when externalReferenceId is given (rule 5 makes it safe). */
  applyCheckDeposit(
    checkDepositId: string,
    body: In<typeof ApplyCheckDepositRequest>,
    options: CallOptions = {},
  ): Promise<ExternalPaymentResult> {
    return this.#transport.call(operations.applyCheckDeposit, {
      params: { checkDepositId },
      body,
      ...options,
    });
  }

  /** 4.2. Retried only with an externalReferenceId (decision “Reference rule”). */
  recordExternalPayment(
    paymentLinkId: string,
    body: In<typeof RecordExternalPaymentRequest>,
    options: CallOptions = {},
  ): Promise<ExternalPaymentResult> {
    return this.#transport.call(operations.recordExternalPayment, {
      params: { paymentLinkId },
      body,
      ...options,
    });
  }

  /** 4.3. */
  updatePaymentLink(
    paymentLinkId: string,
    body: In<typeof UpdatePaymentLinkRequest>,
    options: CallOptions = {},
  ): Promise<PaymentLink> {
    return this.#transport.call(operations.updatePaymentLink, {
      params: { paymentLinkId },
      body,
      ...options,
    });
  }

  /** 4.4. Never retried by the client: a resend could refund twice. */
  refundPayment(
    paymentId: string,
    body: In<typeof RefundPaymentRequest> = {},
    options: CallOptions = {},
  ): Promise<Payment> {
    return this.#transport.call(operations.refundPayment, { params: { paymentId }, body, ...options });
  }

  /** 4.5. */
  sendPaymentLink(
    paymentLinkId: string,
    body: In<typeof SendPaymentLinkRequest>,
    options: CallOptions = {},
  ): Promise<MessageResponse> {
    return this.#transport.call(operations.sendPaymentLink, { params: { paymentLinkId }, body, ...options });
  }

  /** 4.6, one page. */
  listCustomers(
    query: ListQuery<typeof ListCustomersQuery> = {},
    options: CallOptions = {},
  ): Promise<CustomerList> {
    return this.#transport.call(operations.listCustomers, { query, ...options });
  }

  /** 4.6, every page: yields each customer matching the filters. */
  customers(
    filter: Omit<ListQuery<typeof ListCustomersQuery>, 'page'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Customer> {
    return everyItem((query) => this.listCustomers(query, options), filter, 'customers');
  }

  /** 4.7. */
  updateCustomer(
    customerId: string,
    body: In<typeof UpdateCustomerRequest>,
    options: CallOptions = {},
  ): Promise<Customer> {
    return this.#transport.call(operations.updateCustomer, { params: { customerId }, body, ...options });
  }

  /** 4.8. */
  requestChargeAuthorization(
    customerId: string,
    body: In<typeof RequestChargeAuthorizationRequest>,
    options: CallOptions = {},
  ): Promise<ChargeAuthorization> {
    return this.#transport.call(operations.requestChargeAuthorization, {
      params: { customerId },
      body,
      ...options,
    });
  }

  /** 4.9, multipart. */
  uploadFile(input: UploadFileInput, options: CallOptions = {}): Promise<File> {
    const form = () => {
      const data = new FormData();
      for (const key of ['type', 'data', 'customerId', 'routingNumber', 'accountNumber'] as const) {
        const value = input[key];
        if (value !== undefined) data.set(key, value);
      }
      data.set('file', toBlob(input.file, 'application/pdf'), input.filename ?? 'upload.pdf');
      return data;
    };
    return this.#transport.call(operations.uploadFile, { form, ...options });
  }

  /** 4.10. */
  updateVendorAchMethod(
    vendorId: string,
    body: In<typeof UpdateVendorAchMethodRequest>,
    options: CallOptions = {},
  ): Promise<UpdateVendorAchMethodResult> {
    return this.#transport.call(operations.updateVendorAchMethod, { params: { vendorId }, body, ...options });
  }

  /** 4.10, the legacy alias path. */
  updateVendorPayoutMethodAch(
    vendorId: string,
    body: In<typeof UpdateVendorAchMethodRequest>,
    options: CallOptions = {},
  ): Promise<UpdateVendorAchMethodResult> {
    return this.#transport.call(operations.updateVendorPayoutMethodAch, {
      params: { vendorId },
      body,
      ...options,
    });
  }

  /** 4.11. */
  deleteVendor(vendorId: string, options: CallOptions = {}): Promise<MessageResponse> {
    return this.#transport.call(operations.deleteVendor, { params: { vendorId }, ...options });
  }

  // 4.12 (paths and bodies from the decisions doc)

  /** Decision “Void an external payment”. Idempotent, so retried. */
  voidExternalPayment(
    paymentLinkId: string,
    externalPaymentId: string,
    options: CallOptions = {},
  ): Promise<ExternalPaymentResult> {
    return this.#transport.call(operations.voidExternalPayment, {
      params: { paymentLinkId, externalPaymentId },
      ...options,
    });
  }

  /** Decision “Check deposits”. */
  listCheckDeposits(
    query: ListQuery<typeof ListCheckDepositsQuery> = {},
    options: CallOptions = {},
  ): Promise<CheckDepositList> {
    return this.#transport.call(operations.listCheckDeposits, { query, ...options });
  }

  /** Decision “Check deposits”, every page. */
  checkDeposits(
    filter: Omit<ListQuery<typeof ListCheckDepositsQuery>, 'page'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<CheckDeposit> {
    return everyItem((query) => this.listCheckDeposits(query, options), filter, 'checkDeposits');
  }

  /** Decision “Check deposits”. */
  getCheckDeposit(checkDepositId: string, options: CallOptions = {}): Promise<CheckDeposit> {
    return this.#transport.call(operations.getCheckDeposit, { params: { checkDepositId }, ...options });
  }

  /** Decision “Check deposits”, multipart. */
  depositCheck(input: DepositCheckInput, options: CallOptions = {}): Promise<CheckDeposit> {
    const form = () => {
      const data = new FormData();
      data.set('amountCents', String(input.amountCents));
      if (input.memo !== undefined) data.set('memo', input.memo);
      data.set('frontImage', toBlob(input.frontImage, 'image/jpeg'), 'front.jpg');
      data.set('backImage', toBlob(input.backImage, 'image/jpeg'), 'back.jpg');
      return data;
    };
    return this.#transport.call(operations.depositCheck, { form, ...options });
  }

  /** 6.1, decision “Webhook subscription”: replaces the account's API webhook. */
  createWebhook(
    body: In<typeof CreateWebhookRequest>,
    options: CallOptions = {},
  ): Promise<WebhookSubscription> {
    return this.#transport.call(operations.createWebhook, { body, ...options });
  }

  /** Decision “Webhook subscription”: 0 or 1 subscriptions, with their secrets. */
  listWebhooks(options: CallOptions = {}): Promise<WebhookList> {
    return this.#transport.call(operations.listWebhooks, { ...options });
  }

  /** 4.12, decision “Bill payments”. Check events carry this id too. */
  getBillPayment(billPaymentId: string, options: CallOptions = {}): Promise<BillPayment> {
    return this.#transport.call(operations.getBillPayment, { params: { billPaymentId }, ...options });
  }

  // Decisions doc

  /** Decision “Link endpoints beyond part 4”. */
  createPaymentLink(
    body: In<typeof CreatePaymentLinkRequest>,
    options: CallOptions = {},
  ): Promise<PaymentLink> {
    return this.#transport.call(operations.createPaymentLink, { body, ...options });
  }

  /** Decision “Link endpoints beyond part 4”. */
  getPaymentLink(paymentLinkId: string, options: CallOptions = {}): Promise<PaymentLink> {
    return this.#transport.call(operations.getPaymentLink, { params: { paymentLinkId }, ...options });
  }

  /** Decision “Link endpoints beyond part 4”. */
  listPaymentLinks(
    query: ListQuery<typeof ListPaymentLinksQuery> = {},
    options: CallOptions = {},
  ): Promise<PaymentLinkList> {
    return this.#transport.call(operations.listPaymentLinks, { query, ...options });
  }

  /** Decision “Link endpoints beyond part 4”, every page. */
  paymentLinks(
    filter: Omit<ListQuery<typeof ListPaymentLinksQuery>, 'page'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<PaymentLink> {
    return everyItem((query) => this.listPaymentLinks(query, options), filter, 'paymentLinks');
  }

  /** Decision “Link endpoints beyond part 4”. Archiving twice is a no-op, so retried. */
  archivePaymentLink(paymentLinkId: string, options: CallOptions = {}): Promise<PaymentLink> {
    return this.#transport.call(operations.archivePaymentLink, { params: { paymentLinkId }, ...options });
  }

  /** Decision “Debit memos”. Retried only with an externalReferenceId. */
  recordDebitMemo(
    paymentLinkId: string,
    body: In<typeof RecordDebitMemoRequest>,
    options: CallOptions = {},
  ): Promise<DebitMemoResult> {
    return this.#transport.call(operations.recordDebitMemo, { params: { paymentLinkId }, body, ...options });
  }

  /** Decision “Debit memos”. */
  voidDebitMemo(
    paymentLinkId: string,
    debitMemoId: string,
    options: CallOptions = {},
  ): Promise<DebitMemoResult> {
    return this.#transport.call(operations.voidDebitMemo, {
      params: { paymentLinkId, debitMemoId },
      ...options,
    });
  }

  /** Decision “Payment endpoints beyond part 4”. */
  getPayment(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    return this.#transport.call(operations.getPayment, { params: { paymentId }, ...options });
  }

  /** Decision “Payment endpoints beyond part 4”. */
  listPayments(
    query: ListQuery<typeof ListPaymentsQuery> = {},
    options: CallOptions = {},
  ): Promise<PaymentList> {
    return this.#transport.call(operations.listPayments, { query, ...options });
  }

  /** Decision “Payment endpoints beyond part 4”, every page, oldest first. */
  payments(
    filter: Omit<ListQuery<typeof ListPaymentsQuery>, 'page'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Payment> {
    return everyItem((query) => this.listPayments(query, options), filter, 'payments');
  }

  /** Decision “Disbursement statuses”. */
  getDisbursement(disbursementId: string, options: CallOptions = {}): Promise<Disbursement> {
    return this.#transport.call(operations.getDisbursement, { params: { disbursementId }, ...options });
  }

  /** Decision “Disbursement statuses”. */
  listDisbursements(
    query: ListQuery<typeof ListDisbursementsQuery> = {},
    options: CallOptions = {},
  ): Promise<DisbursementList> {
    return this.#transport.call(operations.listDisbursements, { query, ...options });
  }

  /** Decision “Customer endpoints beyond part 4”. */
  createCustomer(body: In<typeof CreateCustomerRequest>, options: CallOptions = {}): Promise<Customer> {
    return this.#transport.call(operations.createCustomer, { body, ...options });
  }

  /** Decision “Customer endpoints beyond part 4”. */
  getCustomer(customerId: string, options: CallOptions = {}): Promise<Customer> {
    return this.#transport.call(operations.getCustomer, { params: { customerId }, ...options });
  }

  /** Decision “Charge authorizations”. */
  getChargeAuthorization(
    chargeAuthorizationId: string,
    options: CallOptions = {},
  ): Promise<ChargeAuthorization> {
    return this.#transport.call(operations.getChargeAuthorization, {
      params: { chargeAuthorizationId },
      ...options,
    });
  }

  /** Decision “Vendors”. */
  createVendor(body: In<typeof CreateVendorRequest>, options: CallOptions = {}): Promise<Vendor> {
    return this.#transport.call(operations.createVendor, { body, ...options });
  }

  /** Decision “Vendors”. */
  getVendor(vendorId: string, options: CallOptions = {}): Promise<Vendor> {
    return this.#transport.call(operations.getVendor, { params: { vendorId }, ...options });
  }

  /** Decision “Bills”. */
  createBill(body: In<typeof CreateBillRequest>, options: CallOptions = {}): Promise<Bill> {
    return this.#transport.call(operations.createBill, { body, ...options });
  }

  /** Decision “Bills”. */
  getBill(billId: string, options: CallOptions = {}): Promise<Bill> {
    return this.#transport.call(operations.getBill, { params: { billId }, ...options });
  }

  /** Decision “Bill payments”: the amount is the bill's. */
  createBillPayment(
    billId: string,
    deliveryMethodId: string,
    options: CallOptions = {},
  ): Promise<BillPayment> {
    return this.#transport.call(operations.createBillPayment, {
      params: { billId },
      body: { deliveryMethodId },
      ...options,
    });
  }

  /** Decision “Bill payments”: only before the payment is sent. */
  cancelBillPayment(billPaymentId: string, options: CallOptions = {}): Promise<BillPayment> {
    return this.#transport.call(operations.cancelBillPayment, { params: { billPaymentId }, ...options });
  }
}
