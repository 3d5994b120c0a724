/**
 * The one way a non-HTTP handler (state machine task, scheduled event) is built: middy with the
 * Powertools logger and tracer. Errors are thrown, so that the state machine's Retry/Catch act on them.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { config } from './config';
import { logger } from './logger';
import { traceInvocations } from './tracer';

// Every function fails its cold start on a missing or malformed variable, not a later request.
config();

export function taskHandler<I, O>(fn: (input: I, context: Context) => Promise<O>) {
  return middy<I, O, Error, Context>()
    .use(traceInvocations())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((input, context) => fn(input, context));
}
