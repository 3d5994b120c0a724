/**
 * The one X-Ray tracer of the service (Powertools), beside the logger: handlers get a segment per
 * invocation through `traceInvocations()`, and the AWS SDK clients are captured so that each
 * DynamoDB, Step Functions and SES call is a subsegment. Outside Lambda (no AWS_EXECUTION_ENV:
 * the local runtime, tests, the bench) the Tracer turns itself off and captures nothing.
 *
 * X-Ray records no payor data: never a handler's response (a payment, a payor,
 * a method), and of an error only that there was one, not its message (a refusal names the
 * value it refused). Set here, before the Tracer reads its settings, whatever the environment says.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { SERVICE_NAME } from './config';

process.env.POWERTOOLS_TRACER_CAPTURE_RESPONSE = 'false';
process.env.POWERTOOLS_TRACER_CAPTURE_ERROR = 'false';

export const tracer = new Tracer({ serviceName: SERVICE_NAME });

/** The middy middleware opening each invocation's segment, recording no response. */
export const traceInvocations = () => captureLambdaHandler(tracer, { captureResponse: false });

/**
 * Every AWS SDK client of the service, as made: captured by the tracer, and without the SDK's
 * logger middleware. Nothing is logged through the SDK's logger, yet that middleware walks each
 * call's input and output against the service's schema to hide sensitive fields: about 6% of a
 * request's CPU on DynamoDB (measured by the bench), and every record of every stream read.
 */
export function awsClient<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove('loggerMiddleware');
  return tracer.captureAWSv3Client(client);
}
