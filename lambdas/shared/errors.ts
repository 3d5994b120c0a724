/**
 * Typed errors. Domain code throws these; one middleware (http.ts) maps them to the status and
 * the `{message, responseCode}` body. Anything else is a 500 with a generic message.
 */
export abstract class ServiceError extends Error {
  abstract readonly status: number;
  /** Fields the error's body carries after `message` and `responseCode` (a 409's `payments`). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Headers the answer carries besides its content type (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    message: string,
    extra: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = new.target.name;
    if (extra.details !== undefined) this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}

export class BadRequestError extends ServiceError {
  readonly status = 400;
}

/** docs/product.md#updating-a-payment: changing `sendPaymentScheduledNotification` after creation. */
export class ImmutableFieldViolationError extends BadRequestError {
  constructor(field: string) {
    super(`ImmutableFieldViolation: ${field} cannot be changed after creation`);
  }
}

export class UnauthorizedError extends ServiceError {
  readonly status = 401;
}

export class ForbiddenError extends ServiceError {
  readonly status = 403;
}

export class NotFoundError extends ServiceError {
  readonly status = 404;
}

export class GroupNotFoundError extends NotFoundError {
  constructor(groupId: string) {
    super(`payment group ${groupId} not found`);
  }
}

export class PaymentNotFoundError extends NotFoundError {
  constructor(paymentId: string) {
    super(`payment ${paymentId} not found`);
  }
}

export class SeriesNotFoundError extends NotFoundError {
  constructor(seriesId: string) {
    super(`series ${seriesId} not found`);
  }
}

export class ConflictError extends ServiceError {
  readonly status = 409;
}

/** The request is well formed but cannot be taken as it is (an Idempotency-Key reused with another request). */
export class UnprocessableEntityError extends ServiceError {
  readonly status = 422;
}

export class ServiceUnavailableError extends ServiceError {
  readonly status = 503;
}
