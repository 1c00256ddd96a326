// Every answer that is not a success has the body `{error, code?}`. Codes are stable snake_case strings a
// sender or an operator can match on; messages are for people. Neither ever carries a secret or a signature.

export interface ErrorBody {
  error: string;
  code?: string;
}

export class IngressError extends Error {
  readonly statusCode: number;
  readonly code: string;
  constructor(statusCode: number, code: string, message: string) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.name = 'IngressError';
  }
}

export interface ErrorReply {
  statusCode: number;
  body: ErrorBody;
}

// Fastify's own errors raised before a handler runs (body parsing), in the ingress's vocabulary.
const FRAMEWORK_ERRORS: Record<string, ErrorReply> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    statusCode: 413,
    body: { error: 'request body too large', code: 'body_too_large' },
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    statusCode: 415,
    body: { error: 'unsupported media type; expected application/json', code: 'unsupported_media_type' },
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    statusCode: 400,
    body: { error: 'content-length does not match the body', code: 'invalid_content_length' },
  },
};

interface MaybeHttpError {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
  validation?: unknown;
}

/** Maps any thrown value to the status and body the client gets. Unknown failures are a bare 500. */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof IngressError) {
    return { statusCode: error.statusCode, body: { error: error.message, code: error.code } };
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as MaybeHttpError;
  if (typeof e.code === 'string') {
    const known = FRAMEWORK_ERRORS[e.code];
    if (known) return known;
  }
  if (e.validation !== undefined) {
    return {
      statusCode: 400,
      body: { error: String(e.message ?? 'invalid request'), code: 'invalid_request' },
    };
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    return { statusCode: status, body: { error: String(e.message ?? 'bad request') } };
  }
  return { statusCode: 500, body: { error: 'internal error', code: 'internal_error' } };
}
