// The closed set of API errors. Each has a stable Code and one HTTP status; the
// mapping lives here and nowhere else. Documented in docs/errors.md.

export abstract class AppError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  /** Extra members merged into the body (never secrets). */
  readonly details: Record<string, unknown> | undefined;
  constructor(message: string, details?: Record<string, unknown>) {
    super(message);
    this.details = details;
  }
}

export class BadRequestError extends AppError {
  readonly code = 'BadRequestError';
  readonly status = 400;
}
export class UnauthorizedError extends AppError {
  readonly code = 'UnauthorizedError';
  readonly status = 401;
}
export class ForbiddenError extends AppError {
  readonly code = 'ForbiddenError';
  readonly status = 403;
}
export class NotFoundError extends AppError {
  readonly code = 'NotFoundError';
  readonly status = 404;
}
export class ConflictError extends AppError {
  readonly code = 'ConflictError';
  readonly status = 409;
}
export class PayloadTooLargeError extends AppError {
  readonly code = 'PayloadTooLargeError';
  readonly status = 413;
}
export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'UnsupportedMediaTypeError';
  readonly status = 415;
}
export class TooManyRequestsError extends AppError {
  readonly code = 'TooManyRequestsError';
  readonly status = 429;
}
export class InternalError extends AppError {
  readonly code = 'InternalError';
  readonly status = 500;
}

export interface ErrorBody {
  Code: string;
  Message: string;
  [extra: string]: unknown;
}

export function errorBody(error: AppError): ErrorBody {
  return { Code: error.code, Message: error.message, ...error.details };
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: unknown;
}

/**
 * Turns anything thrown while handling a request into an AppError. Fastify's own
 * errors (validation, body parsing, limits) become their 4xx class; anything
 * unknown becomes an InternalError whose message never leaks internals.
 */
export function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  const e = error as FastifyLikeError;
  if (e?.validation) return new BadRequestError(e.message);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('Request body is larger than the configured limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError('Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadRequestError('Body cannot be empty when Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new BadRequestError('Body is not valid JSON');
  }
  if (e?.statusCode === 400 && e.message) return new BadRequestError(e.message);
  if (e?.statusCode === 413) return new PayloadTooLargeError('Request body is larger than the configured limit');
  if (e?.statusCode === 415) return new UnsupportedMediaTypeError('Content-Type must be application/json');
  return new InternalError(`Internal error (request id ${requestId})`);
}
