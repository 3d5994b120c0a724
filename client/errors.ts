/** One problem of a 400 whose body failed its schema: the field by path and what was wrong with it. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Every failure the client reports: the API's error body (`message`, `responseCode`, `errors`) for an
 * HTTP error, so callers branch on `responseCode` and show `errors` field by field.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** The HTTP status; 0 when no response arrived (see NetworkError). */
  readonly responseCode: number;
  /** A 400's per-field problems; empty for every other error. */
  readonly errors: FieldError[];
  /** How many attempts were made before giving up (retries included). */
  readonly attempts: number;

  constructor(
    message: string,
    responseCode: number,
    errors: FieldError[],
    attempts: number,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.responseCode = responseCode;
    this.errors = errors;
    this.attempts = attempts;
  }
}

/** No answer: the connection failed, was reset, or the read timed out. Retried like a 500 or 503. */
export class NetworkError extends ApiError {
  override readonly name: string = 'NetworkError';

  constructor(message: string, attempts: number, cause?: unknown) {
    super(message, 0, [], attempts, cause);
  }
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const { field, message } = value as Record<string, unknown>;
  return typeof field === 'string' && typeof message === 'string';
}

/** Builds the typed error from a non-2xx answer; tolerates bodies that are not the API's (a proxy's page). */
export function errorFromResponse(status: number, text: string, attempts: number): ApiError {
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
  return new ApiError(message, status, errors, attempts);
}
