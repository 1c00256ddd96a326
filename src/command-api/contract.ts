import { z } from 'zod';
import { applicationStatuses } from '../flows/check-deposit/applications.js';
import { ObjectId } from '../ingress/object-id.js';

// The command API's contract, one table: each route's method, path, parameters, body and answers, as zod
// schemas. The ingress serves it (validation and serialization through fastify-type-provider-zod), the
// OpenAPI document at /commands/openapi.json is generated from it, and the typed client (client.ts) the CLI
// and the demo use is built on it. Nothing else declares a command's shape.

const amountCents = z
  .number({ error: 'amountCents must be a number of cents' })
  .int('amountCents must be whole cents')
  .min(1, 'amountCents must be at least 1')
  .max(Number.MAX_SAFE_INTEGER);
const reference = z.string().min(1).max(255, 'externalReferenceId is at most 255 characters');
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'paidAt must be YYYY-MM-DD')
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'paidAt is not a calendar date',
  );

export const ApplyDepositBody = z.strictObject({
  paymentLinkId: ObjectId,
  amountCents: amountCents.optional(),
});
export const ExternalPaymentBody = z.strictObject({
  amountCents,
  paidAt: isoDate,
  externalReferenceId: reference.optional(),
});
export const DebitMemoBody = z.strictObject({
  amountCents,
  description: z
    .string()
    .trim()
    .min(1, 'description is required')
    .max(500, 'description is at most 500 characters'),
  externalReferenceId: reference.optional(),
});
const bankDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be YYYY-MM-DD')
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'date is not a calendar date',
  );
export const DepositSlipBody = z.strictObject({
  reference: z
    .string()
    .regex(/^[^\s,;#]{1,100}$/, "reference: 1 to 100 characters, no spaces, commas, semicolons or '#'")
    .describe("The slip's number: one slip number is booked once"),
  date: bankDate.describe('The day the bank took the deposit'),
  payments: z
    .array(z.strictObject({ paymentLinkId: ObjectId, externalPaymentId: ObjectId }))
    .min(1, 'payments: at least one external payment')
    .max(500, 'payments: at most 500 on one slip'),
});
/** A write-off's body: none, `null` or `{}`, or the reason. */
export const WriteOffBody = z
  .union([
    z.undefined(),
    z.null(),
    z.strictObject({
      reason: z
        .string()
        .trim()
        .min(1, 'reason must not be empty')
        .max(500, 'reason is at most 500 characters')
        .optional()
        .describe('Why the receivable is given up (kept with the write-off)'),
    }),
  ])
  .optional();
export const SyncBody = z.strictObject({ reason: z.string().min(1).max(200).optional() }).optional();
/** Commands without a body accept none, `null` or `{}`. */
export const NoBody = z.union([z.undefined(), z.null(), z.strictObject({})]).optional();

export const ErrorBody = z.object({ error: z.string(), code: z.string().optional() }).loose();

const accepted = z.object({ workflowId: z.string(), commandId: z.string() }).loose();
const pending = accepted.extend({ status: z.literal('PENDING'), outcome: z.string() });
const failure = {
  error: z.string().optional(),
  errorType: z.string().nullable().optional(),
  errorCode: z.string().nullable().optional(),
  httpStatus: z.number().nullable().optional(),
};
export const Application = z
  .object({
    commandId: z.string(),
    paymentLinkId: z.string(),
    requestedAmountCents: z.number().nullable(),
    externalReferenceId: z.string(),
    status: z.enum(applicationStatuses),
    externalPaymentId: z.string().nullable(),
    amountCents: z.number().nullable(),
    linkRemainderCents: z.number().optional(),
    ...failure,
  })
  .loose();
export const VoidRecord = z
  .object({
    commandId: z.string(),
    externalPaymentId: z.string(),
    status: z.enum(['DONE', 'FAILED']),
    ...failure,
  })
  .loose();
export const LinkCommandResult = z
  .object({
    commandId: z.string(),
    kind: z.string(),
    status: z.enum(['DONE', 'FAILED']),
    recordId: z.string().nullable(),
    externalReferenceId: z.string().nullable(),
    at: z.string(),
    ...failure,
  })
  .loose();
export const LinkAfterCommand = z.object({
  requestedAmountCents: z.number().nullable(),
  completedAmountCents: z.number().nullable(),
  debitMemoAmountCents: z.number().nullable(),
  remainderCents: z.number().nullable(),
});
/** A workflow's view, as its query answers it (documented with the workflow; open here). */
const View = z.object({}).loose();

const refusals = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
};
const applied = accepted.extend({ application: Application });
const voided = accepted.extend({ void: VoidRecord });
const linkAnswer = accepted.extend({ result: LinkCommandResult, link: LinkAfterCommand.optional() });

export const DepositSlipAnswer = z
  .object({
    workflowId: z.string(),
    reference: z.string(),
    key: z.string(),
    date: z.string(),
    totalCents: z.number(),
    created: z.boolean(),
    payments: z.array(
      z.object({
        paymentLinkId: z.string(),
        externalPaymentId: z.string(),
        entryKey: z.string(),
        amountCents: z.number(),
        paidOn: z.string(),
      }),
    ),
  })
  .loose();
const depositSlipPending = z.object({
  workflowId: z.string(),
  status: z.literal('PENDING'),
  outcome: z.string(),
});
const depositSlipRefused = ErrorBody.extend({ reasons: z.array(z.string()).optional() });

export const WriteOffAnswer = z
  .object({
    paymentLinkId: z.string(),
    writeOffId: z.string(),
    amountCents: z
      .number()
      .describe('What was left to pay, written off: booked Dr Bad Debt / Cr Accounts Receivable'),
    reason: z.string().nullable(),
    recordedAt: z.string(),
    created: z.boolean(),
    link: LinkAfterCommand,
  })
  .loose();

export const WriteOffWithdrawnAnswer = z
  .object({
    paymentLinkId: z.string(),
    writeOffId: z.string(),
    amountCents: z.number().describe('What the write-off gave up: it covers nothing from now on'),
    reason: z.string().nullable(),
    withdrawnAt: z.string(),
    withdrawn: z.boolean().describe('false when it was withdrawn already (the same command again)'),
  })
  .loose();

export type WriteOffAnswerBody = z.output<typeof WriteOffAnswer>;
export type WriteOffWithdrawnBody = z.output<typeof WriteOffWithdrawnAnswer>;
export type DepositSlipAnswerBody = z.output<typeof DepositSlipAnswer>;
export type DepositSlipPendingBody = z.output<typeof depositSlipPending>;
export type PendingAnswer = z.output<typeof pending>;
export type AppliedAnswer = z.output<typeof applied>;
export type VoidedAnswer = z.output<typeof voided>;
export type LinkAnswer = z.output<typeof linkAnswer>;

const depositParams = z.object({ checkDepositId: ObjectId });
const linkParams = z.object({ id: ObjectId });

/** Every route of the command API. `moneyKey`: an Idempotency-Key is required (the command records money). */
export const commandRoutes = {
  applyDeposit: {
    method: 'POST',
    url: '/commands/checkDeposits/:checkDepositId/apply',
    summary: 'Apply a check deposit to a payment link (an Update: answers with the outcome)',
    params: depositParams,
    body: ApplyDepositBody,
    moneyKey: true,
    response: { 201: applied, 202: pending, ...refusals },
  },
  applicationOutcome: {
    method: 'GET',
    url: '/commands/checkDeposits/:checkDepositId/applications/:commandId',
    summary: "An apply's outcome, asked after a 202",
    params: depositParams.extend({ commandId: ObjectId }),
    response: { 201: applied, 202: pending, ...refusals },
  },
  voidApplication: {
    method: 'POST',
    url: '/commands/checkDeposits/:checkDepositId/applications/:externalPaymentId/void',
    summary: 'Void one application of a deposit',
    params: depositParams.extend({ externalPaymentId: ObjectId }),
    body: NoBody,
    response: { 200: voided, 202: pending, ...refusals },
  },
  voidOutcome: {
    method: 'GET',
    url: '/commands/checkDeposits/:checkDepositId/voids/:commandId',
    summary: "A void's outcome, asked after a 202",
    params: depositParams.extend({ commandId: ObjectId }),
    response: { 200: voided, ...refusals },
  },
  refreshDeposit: {
    method: 'POST',
    url: '/commands/checkDeposits/:checkDepositId/refresh',
    summary: 'Look at the deposit now (a signal)',
    params: depositParams,
    body: NoBody,
    response: { 202: accepted, ...refusals },
  },
  depositView: {
    method: 'GET',
    url: '/commands/checkDeposits/:checkDepositId',
    summary: "The check-deposit workflow's view",
    params: depositParams,
    response: { 200: View, ...refusals },
  },
  recordExternalPayment: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/externalPayments',
    summary: 'Record money received outside the service (an Update)',
    params: linkParams,
    body: ExternalPaymentBody,
    moneyKey: true,
    response: { 201: linkAnswer, 202: pending, ...refusals },
  },
  voidExternalPayment: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/externalPayments/:externalPaymentId/void',
    summary: 'Void an external payment (an Update)',
    params: linkParams.extend({ externalPaymentId: ObjectId }),
    body: NoBody,
    response: { 200: linkAnswer, 202: pending, ...refusals },
  },
  recordDebitMemo: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/debitMemos',
    summary: 'Add a debit memo (an Update)',
    params: linkParams,
    body: DebitMemoBody,
    moneyKey: true,
    response: { 201: linkAnswer, 202: pending, ...refusals },
  },
  voidDebitMemo: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/debitMemos/:debitMemoId/void',
    summary: 'Void a debit memo (an Update)',
    params: linkParams.extend({ debitMemoId: ObjectId }),
    body: NoBody,
    response: { 200: linkAnswer, 202: pending, ...refusals },
  },
  writeOffLink: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/writeOff',
    summary:
      "Write off what the link still owes (uncollectible): recorded in the books, then the link's own amount lowered at the service by it; the lowering is booked Dr Bad Debt / Cr Accounts Receivable. 201 written off, 200 the same command again, 404 unknown link, 409 refused with the reason (nothing left to pay, unpaid debit memos, invoice not booked yet)",
    params: linkParams,
    body: WriteOffBody,
    moneyKey: true,
    response: { 200: WriteOffAnswer, 201: WriteOffAnswer, ...refusals },
  },
  withdrawWriteOff: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/writeOffs/:writeOffId/withdraw',
    summary:
      'Withdraw a write-off that never lowered the link (its outcome was unknown, and the link changed before it was retried): it covers nothing from now on, so a later lowering is a discount, not Bad Debt. 200 withdrawn (or withdrawn already), 404 unknown write-off, 409 refused when it is booked already (it stands) or the link has a lowering the books have not taken yet (sync the link first)',
    params: linkParams.extend({ writeOffId: z.string().min(1).max(200) }),
    response: { 200: WriteOffWithdrawnAnswer, ...refusals },
  },
  linkCommandOutcome: {
    method: 'GET',
    url: '/commands/paymentLinks/:id/commands/:commandId',
    summary: "A payment link command's outcome, asked after a 202 (the last 20 are kept)",
    params: linkParams.extend({ commandId: ObjectId }),
    response: { 200: linkAnswer, 201: linkAnswer, ...refusals },
  },
  syncLink: {
    method: 'POST',
    url: '/commands/paymentLinks/:id/sync',
    summary: 'Pick up records made elsewhere (a signal)',
    params: linkParams,
    body: SyncBody,
    response: { 202: accepted, ...refusals },
  },
  linkView: {
    method: 'GET',
    url: '/commands/paymentLinks/:id',
    summary: "The payment-link workflow's view",
    params: linkParams,
    response: { 200: View, ...refusals },
  },
  bookDepositSlip: {
    method: 'POST',
    url: '/commands/depositSlips',
    summary:
      'Book a deposit slip: external payments (checks received outside the service) taken from Checks To Deposit to the operating bank on the bank date; 201 booked, 200 booked already, 422 refused with its reasons',
    params: z.object({}),
    body: DepositSlipBody,
    response: {
      200: DepositSlipAnswer,
      201: DepositSlipAnswer,
      202: depositSlipPending,
      ...refusals,
      422: depositSlipRefused,
    },
  },
  depositSlipOutcome: {
    method: 'GET',
    url: '/commands/depositSlips/:reference',
    summary: "A deposit slip's outcome, asked after a 202: the last request for that slip number",
    params: z.object({ reference: z.string().regex(/^[^\s,;#]{1,100}$/, 'a slip number') }),
    response: {
      200: DepositSlipAnswer,
      201: DepositSlipAnswer,
      202: depositSlipPending,
      ...refusals,
      422: depositSlipRefused,
    },
  },
} as const;

export type CommandRouteName = keyof typeof commandRoutes;
