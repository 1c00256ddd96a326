import type { FileType } from '@booksync/service-contract/schemas/index';

// What the client's multipart operations take: a file upload (4.9) and a check deposit's two images.

/** Bytes of an uploaded file, as a Blob or raw bytes. */
export type UploadBytes = Blob | Uint8Array;

export interface UploadFileInput {
  file: UploadBytes;
  filename?: string;
  /** Either type, or data as `type=<FILE TYPE>` (4.9, decision “Files”). */
  type?: FileType;
  data?: string;
  /** With ACH_DEBIT_AUTHORIZATION_PDF only (decision “Files”). */
  customerId?: string;
  routingNumber?: string;
  accountNumber?: string;
}

export interface DepositCheckInput {
  amountCents: number;
  frontImage: UploadBytes;
  backImage: UploadBytes;
  memo?: string;
}

/** Raw bytes as a Blob of `type`; a Blob as it is. */
export function toBlob(bytes: UploadBytes, type: string): Blob {
  return bytes instanceof Blob ? bytes : new Blob([bytes], { type });
}
