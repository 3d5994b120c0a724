/**
 * The one X-Ray tracer of the service (Powertools), beside the logger: handlers get a segment per
 * invocation through its middy middleware, and the AWS SDK clients are captured so that each
 * DynamoDB, Step Functions and SES call is a subsegment. Outside Lambda (no AWS_EXECUTION_ENV:
 * the local runtime, tests, the bench) the Tracer turns itself off and captures nothing.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './config';

export const tracer = new Tracer({ serviceName: SERVICE_NAME });
