/** An answer the emulator gives on purpose: always rendered as {error, code?} (decision “Error bodies”). */
export class EmulatorHttpError extends Error {
  readonly statusCode: number;
  readonly code?: string;
  constructor(statusCode: number, message: string, code?: string) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.name = 'EmulatorHttpError';
  }
}

export const badRequest = (message: string): EmulatorHttpError => new EmulatorHttpError(400, message);

/** Decision “Error bodies”: names the object; another organization's object answers exactly like a missing one. */
export const notFound = (what: string, id: string): EmulatorHttpError =>
  new EmulatorHttpError(404, `${what} ${id} not found`);

export const referenceConflict = (reference: string): EmulatorHttpError =>
  new EmulatorHttpError(
    409,
    `externalReferenceId ${reference} is already used on this payment link for a different payment`,
    'REFERENCE_CONFLICT',
  );
