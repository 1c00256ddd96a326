import type {
  Bill,
  BillPayment,
  ChargeAuthorization,
  CheckDeposit,
  Customer,
  DebitMemo,
  Disbursement,
  EventEnvelope,
  ExternalPayment,
  File,
  Payment,
  PaymentLink,
  Vendor,
  WebhookSubscription,
} from './schemas/index.js';

// Valid examples of every resource, built the way the emulator answers (decision “Time formats” timestamps, decision “Identifiers” ids).

export const externalPayment: ExternalPayment = {
  id: 'ep_1',
  amountCents: 2500,
  paidAt: '2026-11-20',
  voided: false,
  externalReferenceId: 'ref-1',
  serviceBankingTransferId: null,
};

export const debitMemo: DebitMemo = {
  id: 'dm_1',
  amountCents: 1500,
  description: 'Returned check fee',
  voided: false,
  createdAt: '2026-11-21T10:00:00.000Z',
  externalReferenceId: null,
};

export const disbursement: Disbursement = {
  id: 'dis_1',
  status: 'PENDING',
  amountInCents: 9641,
  bankName: 'First Bank',
  accountNumberLastFour: '6789',
  paymentIds: ['pay_1'],
  createdAt: '2026-11-21',
  paidAt: null,
};

export const payment: Payment = {
  id: 'pay_1',
  status: 'SUCCEEDED',
  fees: [{ type: 'CREDIT_CARD_FEE', amountInCents: 320 }],
  amountInCents: 10000,
  chargedAmountInCents: 10000,
  platformFeeInCents: 320,
  paymentLinkId: 'pl_1',
  paymentMethod: {
    id: 'pm_1',
    type: 'Card',
    achDetails: null,
    cardDetails: { brand: 'visa', last4: '4242', holderName: null, expMonth: '12', expYear: '2030' },
    serviceBalanceDetails: null,
    billingDetails: {
      name: 'Ada',
      companyName: null,
      street: null,
      city: null,
      state: null,
      zip: '10001',
      email: 'ada@example.com',
    },
  },
  disbursement: null,
  refunds: [{ id: 're_1', amountCents: 100, refundDate: '2026-11-21T10:00:00.000Z', voided: false }],
  createdAt: 1_795_000_000_000,
  estimatedDisbursementDate: '2026-11-23',
};

export const paymentLink: PaymentLink = {
  id: 'pl_1',
  name: 'Invoice 1001',
  requestedAmountCents: 11500,
  dueDate: '2026-12-01',
  status: 'ACTIVE',
  payments: [payment],
  externalPayments: [externalPayment],
  debitMemos: [debitMemo],
  debitMemoAmountCents: 1500,
  customerId: 'cus_1',
  url: 'https://pay.example.com/pl_1',
  completedAmountCents: 12400,
  feePassthroughPercent: null,
  creditCardEnabled: null,
  achEnabled: true,
  amountEditable: false,
  reusable: false,
};

export const customer: Customer = {
  id: 'cus_1',
  name: 'Acme Corp',
  emails: ['ap@acme.example'],
  achEnabled: null,
  feePassthroughPercent: 50,
};

export const file: File = {
  id: 'file_1',
  key: 'org_1/file_1.pdf',
  type: 'INVOICE_PDF',
  createdAt: '2026-11-21T10:00:00.000Z',
};

export const chargeAuthorization: ChargeAuthorization = {
  id: 'ca_1',
  customerId: 'cus_1',
  paymentMethod: {
    id: 'pm_2',
    type: 'ACH',
    achDetails: { bankName: 'First Bank', routingNumber: '021000021', accountNumberLastFour: '6789' },
    cardDetails: null,
    serviceBalanceDetails: null,
    billingDetails: {
      name: 'Ada',
      companyName: 'Acme',
      street: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      countryCode: 'US',
    },
  },
  transactionLimitCents: 500000,
  expirationDate: '2027-11-21',
  active: true,
};

export const checkDeposit: CheckDeposit = {
  id: 'cd_1',
  transferId: 'tr_1',
  amountCents: 5000,
  unappliedAmountCents: 2500,
  status: 'PROCESSING',
  applications: [{ ...externalPayment, serviceBankingTransferId: 'tr_1' }],
  memo: null,
  createdAt: '2026-11-21T10:00:00.000Z',
  clearedAt: null,
  returnedAt: null,
};

export const vendor: Vendor = {
  id: 'ven_1',
  name: 'Paper Supply',
  email: null,
  vendorDeliveryMethods: [
    {
      id: 'vdm_1',
      type: 'ACH',
      achDetails: { routingNumber: '021000021', accountNumberLastFour: '6789', accountType: 'CHECKING' },
      checkAddress: null,
      wireDetails: null,
      createdAt: '2026-11-21T10:00:00.000Z',
    },
  ],
  createdAt: '2026-11-21T10:00:00.000Z',
};

export const bill: Bill = {
  id: 'bill_1',
  vendorId: 'ven_1',
  amountCents: 12000,
  dueDate: null,
  invoiceNumber: 'INV-7',
  status: 'OPEN',
  createdAt: '2026-11-21T10:00:00.000Z',
};

export const billPayment: BillPayment = {
  id: 'bp_1',
  billId: 'bill_1',
  vendorId: 'ven_1',
  amountCents: 12000,
  status: 'PENDING',
  deliveryMethodId: 'vdm_2',
  deliveryMethodType: 'CHECK',
  sentAt: null,
  completedAt: null,
  failureReason: null,
  check: {
    checkNumber: null,
    status: 'PENDING',
    sentAt: null,
    deliveredAt: null,
    depositedAt: null,
    returnedAt: null,
    failedAt: null,
  },
  createdAt: '2026-11-21T10:00:00.000Z',
};

export const webhookSubscription: WebhookSubscription = {
  id: 'wh_1',
  url: 'https://hooks.example.com/service',
  secret: 'whsec_abc',
  createdAt: '2026-11-21T10:00:00.000Z',
};

export const eventEnvelope: EventEnvelope = {
  id: '5f0c6b5e-3c1a-4c7e-9b53-2a1f0d7e8c11',
  created_at: '2026-11-21T10:00:00.000Z',
  category: 'payment.made',
  associated_object_type: 'payment',
  associated_object_id: 'pay_1',
  type: 'event',
};
