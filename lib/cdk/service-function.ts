/**
 * The one Lambda function construct of the service: every handler gets the same runtime,
 * architecture, bundling, tracing and log retention, and permissions are added only through the
 * `bind*` helpers of lib/cdk/access.ts, which grant what the handler's code uses (read from it by
 * `npm run access`) and pair each resource's environment variable with its grant.
 */
import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ProcessorName } from '../../contract/processor';
import type { Stage } from '../../contract/stage';
import { processorOf } from './processor';

/** Repository root: `lambdas/`, `package.json` and `package-lock.json` live here. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Service name: Powertools service name, physical-name prefix and `service` tag. */
export const SERVICE_NAME = 'scheduled-payments';

/** Log retention of a stage's function and access logs: a year in prod (PCI DSS 10.5.1: 12 months). */
export const logRetention = (stage: Stage): logs.RetentionDays =>
  stage === 'prod' ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.ONE_MONTH;

/**
 * The functions' log level (Powertools), set on every function of each stage rather than left to
 * the library's default: INFO keeps the access records and refusals operators read; no stage logs
 * DEBUG, whose records would carry whatever a debugging statement dumps (docs/operating.md
 * "Configuration of the functions").
 */
export const LOG_LEVELS: Readonly<Record<Stage, string>> = { dev: 'INFO', prod: 'INFO' };

/** Absolute path of a handler module (`groups/create-group` → `<repo>/lambdas/groups/create-group.ts`). */
const handlerEntry = (handler: string): string => path.join(REPO_ROOT, 'lambdas', `${handler}.ts`);

/** `groups/create-group` → `groups-create-group`, for construct ids. */
export const handlerSlug = (handler: string): string => handler.replace(/[^A-Za-z0-9]+/g, '-');

/**
 * The physical name of a handler's function: `scheduled-payments-<stage>-<folder>_<action>`
 * (`groups/create-group` → `scheduled-payments-prod-groups_create-group`), its log group
 * `/aws/lambda/<name>`. The `_` between the handler's folder and file keeps the module path
 * readable, and sets these names apart from the single-stack layout's (`…-groups-create-group`):
 * CloudFormation creates a function in its nested stack before it deletes the one the stage stack
 * held, so the same name would collide there, and prod's retained log group with it
 * (docs/operating.md, "Moving a stage onto nested stacks").
 */
export const functionNameOf = (stage: Stage, handler: string): string =>
  `${SERVICE_NAME}-${stage}-${handler.replace(/\//g, '_').replace(/[^A-Za-z0-9_]+/g, '-')}`;

interface ServiceFunctionProps {
  /** Handler module under `lambdas/`, without extension, e.g. `groups/create-group`. */
  readonly handler: string;
  readonly stage: Stage;
  /**
   * Function timeout. API handlers do a handful of DynamoDB calls; 10 s is far above their
   * latency yet well below API Gateway's 29 s integration timeout, so a stuck call ends as a
   * function error the service maps to 500 instead of a gateway 504, and costs 10 s at most.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB; Lambda allots CPU in proportion, and 512 MB keeps cold starts short.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Extra environment variables (the defaults below are always set).
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * Concurrency reserved for the function: at most this many of it run at once, and the account's
   * other functions can never take it (processing's share: contract/processing.ts).
   * @default - none: it shares the account's unreserved pool
   */
  readonly reservedConcurrency?: number;
  /** @default - `<handler> (<stage>)` */
  readonly description?: string;
  /** @default - functionNameOf(stage, handler) */
  readonly functionName?: string;
}

/** A NodejsFunction with the service defaults and its own log group. */
export class ServiceFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  /** The function's physical name (a literal, also in another stack's context). */
  readonly functionName: string;
  /** The handler module's file, which the bundle check (scripts/check-bundles.ts) bundles. */
  readonly entry: string;
  /**
   * esbuild options of every bundle, shared with the bundle check. esbuild from node_modules, no
   * Docker; it resolves the package.json "imports" aliases.
   */
  static readonly bundling = {
    format: OutputFormat.CJS,
    target: 'node22',
    minify: true,
    // Stack traces point at the TypeScript sources through the bundled source maps; shipping the
    // sources as well would only add size.
    sourceMap: true,
    sourcesContent: false,
    // The Node.js 22 runtime provides AWS SDK v3; bundling our own would only add size.
    externalModules: ['@aws-sdk/*'],
    // Warnings and errors only: no report of each bundle's files and sizes at every synth
    // (`npm run check:bundles` measures the sizes).
    logLevel: LogLevel.WARNING,
  } as const;

  /**
   * What esbuild replaces in a bundle of a stage running `processor`: the adapter registry
   * (lambdas/processor/index.ts) keeps that processor's adapter alone, so that a sandbox stage's
   * bundles carry none of Stripe's package, and a Stripe stage's none of the sandbox.
   */
  static readonly defineFor = (processor: ProcessorName): Record<string, string> => ({
    'process.env.PROCESSOR_BUNDLE': JSON.stringify(processor),
  });

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { handler, stage } = props;
    const functionName = props.functionName ?? functionNameOf(stage, handler);
    this.functionName = functionName;

    this.logGroup = functionLogGroup(this, stage, functionName);
    this.entry = handlerEntry(handler);

    this.fn = new NodejsFunction(this, 'Function', {
      functionName,
      description: props.description ?? `${handler} (${stage})`,
      entry: this.entry,
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(10),
      memorySize: props.memorySize ?? 512,
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: lambda.Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: LOG_LEVELS[stage],
        // Stack traces point at the TypeScript sources through the bundled source maps.
        NODE_OPTIONS: '--enable-source-maps',
        SERVICE_STAGE: stage,
        ...props.environment,
      },
      bundling: {
        ...ServiceFunction.bundling,
        externalModules: [...ServiceFunction.bundling.externalModules],
        define: ServiceFunction.defineFor(processorOf(this)),
      },
    });
  }
}

/**
 * The answer of a non-production-only endpoint in prod: the service's error body, 403, naming the
 * operation as the handler's own refusal does (lambdas/core/triggers.ts): the last segment of the
 * route's path (process-payments, retry-payments, settle-now).
 */
const prodRefusal = (path: string) =>
  ({ message: `${path.split('/').at(-1)} is not available in production`, responseCode: 403 }) as const;

/**
 * Prod's function of a non-production-only handler (the trigger endpoints): inline code that
 * answers 403 with the service's error body, with no variables and no grant beyond its logs. The
 * handler module would read the table (authorization) before refusing; this holds no table access.
 */
export function prodRefusalFunction(
  scope: Construct,
  handler: string,
  stage: Stage,
  path: string,
): lambda.Function {
  const holder = new Construct(scope, handlerSlug(handler));
  const functionName = functionNameOf(stage, handler);
  const logGroup = functionLogGroup(holder, stage, functionName);
  const refusal = prodRefusal(path);
  const response = {
    statusCode: refusal.responseCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(refusal),
  };
  return new lambda.Function(holder, 'Function', {
    functionName,
    description: `${handler} (${stage}): refuses, not available in production`,
    code: lambda.Code.fromInline(`exports.handler = async () => (${JSON.stringify(response)});\n`),
    handler: 'index.handler',
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    timeout: Duration.seconds(3),
    memorySize: 128,
    tracing: lambda.Tracing.ACTIVE,
    logGroup,
    environment: { SERVICE_STAGE: stage },
  });
}

function functionLogGroup(scope: Construct, stage: Stage, functionName: string): logs.LogGroup {
  return new logs.LogGroup(scope, 'LogGroup', {
    logGroupName: `/aws/lambda/${functionName}`,
    retention: logRetention(stage),
    // Keep production logs when the stack goes; dev logs go with it.
    removalPolicy: stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}
