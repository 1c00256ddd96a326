import type { FastifyRequest } from 'fastify';
import { EmulatorHttpError } from '../errors.js';

export interface MultipartForm {
  fields: Record<string, string>;
  files: Map<string, { filename: string; bytes: number }>;
}

/**
 * Reads a whole multipart form: text fields as strings, files drained and measured (the emulator keeps no
 * content). A file over maxFileBytes answers 413.
 */
export async function readMultipart(request: FastifyRequest, maxFileBytes: number): Promise<MultipartForm> {
  if (!request.isMultipart()) throw new EmulatorHttpError(400, 'invalid body: expected multipart/form-data');
  const form: MultipartForm = { fields: {}, files: new Map() };
  for await (const part of request.parts({ limits: { fileSize: maxFileBytes } })) {
    if (part.type === 'file') {
      let bytes = 0;
      for await (const chunk of part.file) bytes += (chunk as Buffer).length;
      if (part.file.truncated)
        throw new EmulatorHttpError(413, `${part.fieldname} is larger than ${maxFileBytes} bytes`);
      form.files.set(part.fieldname, { filename: part.filename, bytes });
    } else {
      form.fields[part.fieldname] = String(part.value);
    }
  }
  return form;
}
