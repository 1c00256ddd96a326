import { z } from 'zod';
import { id, isoDateTime } from './primitives.js';

// Spec 2.10, 4.9, decision “Files”. File types are closed (decision “Unknown enum values from the real service”).
export const FILE_TYPES = [
  'ACH_DEBIT_AUTHORIZATION_PDF',
  'CREDIT_CARD_AUTHORIZATION_PDF',
  'INVOICE_PDF',
] as const;
export const FileType = z.enum(FILE_TYPES);
export type FileType = z.infer<typeof FileType>;

export const File = z.object({
  /** The value to pass to endpoints that take a fileId. */
  id,
  key: z.string(),
  type: FileType,
  createdAt: isoDateTime,
});
export type File = z.infer<typeof File>;

/** 10 MiB (decision “Files”). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * The text fields of the 4.9 multipart form. Either type or data (`type=<FILE TYPE>`) is given (decision “Files”);
 * customerId, routingNumber and accountNumber only with ACH_DEBIT_AUTHORIZATION_PDF.
 */
export const UploadFileFields = z.object({
  type: FileType.optional(),
  data: z.string().optional(),
  customerId: id.optional(),
  routingNumber: z.string().optional(),
  accountNumber: z.string().optional(),
});
export type UploadFileFields = z.infer<typeof UploadFileFields>;
