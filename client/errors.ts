/** One problem of a 400 whose body failed its schema: the field by path and what was wrong with it. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Every failure the client reports: the HTTP `status` and the API's error body (`message`,
 * `responseCode`, `errors`), so callers branch on `status` and show `errors` field by field.
 * A POST's error carries the `idempotencyKey` it was sent with: send the request again with that
 * key (never a new one) and the service answers what the first did, so nothing is done twice.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** The HTTP status; 0 when no response arrived (see NetworkError). */
  readonly status: number;
  /**
   * The body's `responseCode` when it has one (the HTTP status for the API's own errors; a
   * processor's code where an operation documents one), else the HTTP status.
   */
  readonly responseCode: number | string;
  /** A 400's per-field problems; empty for every other error. */
  readonly errors: FieldError[];
  /** How many attempts were made before giving up (retries included). */
  readonly attempts: number;
  /** The Idempotency-Key every attempt carried (POSTs); undefined for reads and deletes. */
  readonly idempotencyKey: string | undefined;
  /**
   * The error body as the API sent it (undefined when it was not JSON), with what some errors
   * carry besides `message`: a 409 of DeletePayor or DeleteMethod lists the `payments` and `series`
   * that use the methods, to move or delete before deleting again.
   */
  readonly body: Record<string, unknown> | undefined;

  constructor(
    message: string,
    status: number,
    errors: FieldError[],
    attempts: number,
    cause?: unknown,
    idempotencyKey?: string,
    responseCode?: number | string,
    body?: Record<string, unknown>,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.body = body;
    this.status = status;
    this.responseCode = responseCode ?? status;
    this.errors = errors;
    this.attempts = attempts;
    this.idempotencyKey = idempotencyKey;
  }
}

/** No answer: the connection failed, was reset, or the read timed out. Retried like a 503. */
export class NetworkError extends ApiError {
  override readonly name: string = 'NetworkError';

  constructor(message: string, attempts: number, cause?: unknown, idempotencyKey?: string) {
    super(message, 0, [], attempts, cause, idempotencyKey);
  }
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const { field, message } = value as Record<string, unknown>;
  return typeof field === 'string' && typeof message === 'string';
}

/** Builds the typed error from a non-2xx answer; tolerates bodies that are not the API's (a proxy's page). */
export function errorFromResponse(
  status: number,
  text: string,
  attempts: number,
  idempotencyKey?: string,
): ApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message =
    typeof record.message === 'string'
      ? record.message
      : typeof record.error === 'string'
        ? record.error
        : `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  const errors = Array.isArray(record.errors) ? record.errors.filter(isFieldError) : [];
  const code = record.responseCode;
  const responseCode = typeof code === 'number' || typeof code === 'string' ? code : status;
  const parsed = typeof body === 'object' && body !== null && !Array.isArray(body) ? record : undefined;
  return new ApiError(message, status, errors, attempts, undefined, idempotencyKey, responseCode, parsed);
}
