import { z } from 'zod';
import { id, isoDate } from './primitives.js';

// Spec 4.6 and decision “Pagination”: every list takes page (>= 1, default 1) and pageSize (>= 1, default 25, clamped to 100).
// Query strings arrive as text, so the numbers are coerced; "abc", "1.5", "0" all fail.

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;

const queryInt = z.coerce.number().pipe(z.int().min(1));

// The meta is what OpenAPI shows: coercion hides the integer rule from JSON Schema's input view.
export const pageQuery = {
  page: queryInt
    .default(1)
    .meta({ type: 'integer', minimum: 1, default: 1, description: '1-indexed page number' }),
  pageSize: queryInt
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    .default(DEFAULT_PAGE_SIZE)
    .meta({
      type: 'integer',
      minimum: 1,
      default: DEFAULT_PAGE_SIZE,
      description: `results per page; larger than ${MAX_PAGE_SIZE} is clamped to ${MAX_PAGE_SIZE}`,
    }),
};

export const PageQuery = z.object(pageQuery);
export type PageQuery = z.infer<typeof PageQuery>;

/** 4.6: both filters are case-insensitive substrings; both given means both must match. */
export const ListCustomersQuery = z.object({
  ...pageQuery,
  name: z.string().optional(),
  email: z.string().optional(),
});
export type ListCustomersQuery = z.infer<typeof ListCustomersQuery>;
export type ListCustomersFilter = z.input<typeof ListCustomersQuery>;

/** Decision “Link endpoints beyond part 4”. */
export const ListPaymentLinksQuery = z.object({
  ...pageQuery,
  customerId: id.optional(),
  status: z.string().optional(),
});
export type ListPaymentLinksQuery = z.infer<typeof ListPaymentLinksQuery>;

/** Decision “Payment endpoints beyond part 4”: since is a date. */
export const ListPaymentsQuery = z.object({
  ...pageQuery,
  paymentLinkId: id.optional(),
  since: isoDate.optional(),
});
export type ListPaymentsQuery = z.infer<typeof ListPaymentsQuery>;

/** Decision “Disbursement statuses”. */
export const ListDisbursementsQuery = z.object(pageQuery);
export type ListDisbursementsQuery = z.infer<typeof ListDisbursementsQuery>;

/** Decision “Check deposits”. */
export const ListCheckDepositsQuery = z.object({ ...pageQuery, status: z.string().optional() });
export type ListCheckDepositsQuery = z.infer<typeof ListCheckDepositsQuery>;
