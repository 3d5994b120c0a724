/** Stripe's error answers, as the stand-in gives them. */
import type Stripe from 'stripe';

export interface StripeErrorBody {
  type: string;
  code?: string;
  decline_code?: string;
  message: string;
  param?: string;
  payment_intent?: Stripe.PaymentIntent;
  payment_method?: Stripe.PaymentMethod;
  setup_intent?: Stripe.SetupIntent;
}

/**
 * An error answer. `executed`: the request started (Stripe keeps its answer under the
 * idempotency key); a request refused before (bad parameters) leaves the key unused.
 */
export class StandInError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    readonly executed = false,
  ) {
    super(body.message);
  }
}

export const invalidRequest = (message: string, param?: string, code = 'parameter_invalid'): StandInError =>
  new StandInError(400, {
    type: 'invalid_request_error',
    code,
    message,
    ...(param !== undefined && { param }),
  });

export const missing = (param: string): StandInError =>
  invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing');

export const noSuch = (what: string, id: string, param = 'id'): StandInError =>
  new StandInError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${what}: '${id}'`,
    param,
  });
