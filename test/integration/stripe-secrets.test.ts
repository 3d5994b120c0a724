/**
 * No card number and no secret key in a log line, an error message or a trace. Stripe's own
 * error messages can quote what they were sent (a card number Stripe refused, the key it did not
 * accept); here the stand-in answers with such messages on every kind of error, and everything the
 * adapter throws — its message, its stack, the error as a logger or a tracer would serialize it —
 * and everything written to stdout or stderr while the service answers those errors stays clean.
 */
import { inspect } from 'node:util';
import type { StandInFault } from '#lib/local/stripe/faults';
import { errorResponse } from '#shared/http';
import {
  cardOf,
  MERCHANT,
  STAND_IN_KEY,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';

const NUMBER = '4000000000009995';
let env: StripeOnStandIn;
beforeAll(async () => {
  env = await stripeOnStandIn({ timeoutMs: 800 });
});
afterAll(() => env.close());
afterEach(() => env.standIn.faults.clear());

/** Everything a process could show of an error: message, stack, inspection, JSON, cause. */
const everythingOf = (error: unknown): string =>
  [
    String(error),
    (error as Error).stack ?? '',
    inspect(error, { depth: 8, showHidden: true }),
    JSON.stringify(error, Object.getOwnPropertyNames(error as object)),
    inspect((error as Error).cause, { depth: 8 }),
  ].join('\n');

/** Runs `work` with stdout, stderr and the console captured; returns what was written. */
async function captured(work: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const grab = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(grab as never),
    jest.spyOn(process.stderr, 'write').mockImplementation(grab as never),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest
        .spyOn(console, level)
        .mockImplementation((...args: unknown[]) => void written.push(inspect(args, { depth: 8 }))),
    ),
  ];
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written.join('\n');
}

const quoting = `Request req_1: card[number]=${NUMBER} refused for key ${STAND_IN_KEY}`;
const faults: [string, StandInFault][] = [
  [
    'a card error',
    {
      before: 'error',
      status: 402,
      error: { type: 'card_error', code: 'incorrect_number', message: quoting, param: 'card[number]' },
    },
  ],
  [
    'a refused request',
    {
      before: 'error',
      status: 400,
      error: { type: 'invalid_request_error', code: 'parameter_invalid', message: quoting },
    },
  ],
  [
    'a refused key',
    { before: 'error', status: 401, error: { type: 'invalid_request_error', message: quoting } },
  ],
  ['a server error', { before: 'error', status: 500, error: { type: 'api_error', message: quoting } }],
  [
    'a rate limit',
    {
      before: 'error',
      status: 429,
      error: { type: 'invalid_request_error', code: 'rate_limit', message: quoting },
    },
  ],
];

it.each(faults)(
  '%s quoting the card number and the key, at vaulting, stays out of errors and logs',
  async (_name, fault) => {
    let thrown: unknown;
    const logs = await captured(async () => {
      env.standIn.faults.add(fault, { method: 'POST', path: '/v1/payment_methods' });
      thrown = await env.processor.tokenize(cardOf(NUMBER)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(thrown).toBeInstanceOf(Error);
      // As the API answers it: the logged refusal or failure, and the body.
      const response = errorResponse(thrown);
      expect(response.statusCode).not.toBe(500);
      expect(response.body).not.toContain(NUMBER);
    });
    const shown = `${everythingOf(thrown)}\n${logs}`;
    expect(shown).not.toContain(NUMBER);
    expect(shown).not.toContain(STAND_IN_KEY);
    expect(shown).not.toContain(STAND_IN_KEY.slice(-12));
  },
);

it.each(faults)(
  '%s quoting the card number and the key, at a sale, stays out of errors and logs',
  async (_name, fault) => {
    const { token } = await env.processor.tokenize(cardOf(NUMBER));
    let outcome: unknown;
    const logs = await captured(async () => {
      env.standIn.faults.add(fault, { method: 'POST', path: '/v1/payment_intents' });
      outcome = await env.processor
        .sale({
          idempotencyKey: `sale:secrets-${Math.random()}`,
          keyFirstUsedAt: new Date().toISOString(),
          merchantId: MERCHANT,
          token,
          amountCents: 1000,
          allowPartial: false,
        })
        .catch((e: unknown) => {
          errorResponse(e);
          return e;
        });
    });
    const shown = `${everythingOf(outcome)}\n${inspect(outcome, { depth: 8 })}\n${logs}`;
    expect(shown).not.toContain(NUMBER);
    expect(shown).not.toContain(STAND_IN_KEY);
  },
);

it('an answer spoiled in the middle of its body (a timeout) stays out too', async () => {
  const { token } = await env.processor.tokenize(cardOf(NUMBER));
  let thrown: unknown;
  const logs = await captured(async () => {
    env.standIn.faults.add({ after: 'hang-mid-body' }, { method: 'POST', path: '/v1/payment_intents' });
    thrown = await env.processor
      .sale({
        idempotencyKey: 'sale:secrets-hang',
        keyFirstUsedAt: new Date().toISOString(),
        merchantId: MERCHANT,
        token,
        amountCents: 1000,
        allowPartial: false,
      })
      .catch((e: unknown) => e);
    errorResponse(thrown);
  });
  expect(thrown).toBeInstanceOf(Error);
  const shown = `${everythingOf(thrown)}\n${logs}`;
  expect(shown).not.toContain(STAND_IN_KEY);
  expect(shown).not.toContain(NUMBER);
});

it('the stand-in’s own record of requests keeps no body (card numbers travel only in bodies)', () => {
  expect(JSON.stringify(env.standIn.requests)).not.toContain(NUMBER);
});
