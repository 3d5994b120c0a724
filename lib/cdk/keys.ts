/**
 * Customer-managed KMS keys at rest (issue 22, item 3; docs/decisions.md "Keys at rest"): in prod,
 * one key per kind of data, each with yearly rotation, kept when the stack goes (a deleted key
 * would leave the retained table and logs unreadable):
 *
 * - `table`: the DynamoDB table (its indexes, stream and backups use the table's key);
 * - `queues`: the SQS queues and their dead-letter queues;
 * - `logs`: the CloudWatch log groups (functions, API access logs, state machines). Only the
 *   Region's CloudWatch Logs service may use it, and only for this stage's log groups (an
 *   encryption-context condition on the log group's ARN); no function holds it.
 *
 * Dev keeps AWS's own encryption (the table's AWS owned key, SQS-managed keys, CloudWatch Logs'
 * default): it holds sandbox data only, outside PCI DSS scope, and three keys per developer's
 * stage would be paid for nothing. A function's use of the table and queue keys is granted by
 * lib/cdk/access.ts from what its code does (test/infra/kms.test.ts checks every role).
 */
import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Aspects, type IAspect } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { SERVICE_NAME } from './service-function';

/** The kinds of data with a key of their own, and what each key's description says. */
export const KEY_PURPOSES = {
  table: 'the DynamoDB table (items, indexes, stream, backups)',
  queues: 'the SQS queues and their dead-letter queues',
  logs: 'the CloudWatch log groups of the functions, the API and the state machines',
} as const;

export type KeyPurpose = keyof typeof KEY_PURPOSES;

/** Whether a stage encrypts with customer-managed keys (prod only: see the file comment). */
const usesCustomerKeys = (stage: Stage): boolean => stage === 'prod';

/** The alias of a stage's key: `alias/scheduled-payments-prod-table`. */
export const keyAlias = (stage: Stage, purpose: KeyPurpose): string =>
  `alias/${SERVICE_NAME}-${stage}-${purpose}`;

/**
 * The log groups the logs key serves, as ARN patterns of the encryption context CloudWatch Logs
 * sends (`kms:EncryptionContext:aws:logs:arn`): the functions' (`/aws/lambda/<service>-<stage>-…`),
 * the state machines' (`/aws/vendedlogs/states/<service>-<stage>-…`) and the API's access logs,
 * which CloudFormation names `<stack name>-…`.
 */
const logGroupArnPatterns = (stage: Stage): string[] => {
  const base = `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:`;
  return [
    `${base}/aws/lambda/${SERVICE_NAME}-${stage}-*`,
    `${base}/aws/vendedlogs/states/${SERVICE_NAME}-${stage}-*`,
    `${base}${Aws.STACK_NAME}-*`,
  ];
};

/** A stage's keys at rest: the three keys in prod, none in dev (AWS's own encryption). */
export class ServiceKeys extends Construct {
  readonly table?: kms.Key;
  readonly queues?: kms.Key;
  readonly logs?: kms.Key;

  constructor(scope: Construct, id: string, props: { readonly stage: Stage }) {
    super(scope, id);
    const { stage } = props;
    if (!usesCustomerKeys(stage)) return;
    const key = (purpose: KeyPurpose): kms.Key =>
      new kms.Key(this, `${purpose[0]!.toUpperCase()}${purpose.slice(1)}Key`, {
        alias: keyAlias(stage, purpose),
        description: `Encrypts ${KEY_PURPOSES[purpose]} (${stage})`,
        enableKeyRotation: true,
        // The table and the log groups are retained in prod; their key must outlive the stack too.
        removalPolicy: RemovalPolicy.RETAIN,
        pendingWindow: Duration.days(30),
      });
    this.table = key('table');
    this.queues = key('queues');
    this.logs = key('logs');
    this.logs.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchLogsOfThisStage',
        principals: [new iam.ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
        actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
        resources: ['*'],
        conditions: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': logGroupArnPatterns(stage) } },
      }),
    );
  }
}

/** A queue's encryption: under the customer-managed key when there is one, else SQS-managed. */
export const queueEncryption = (
  key: kms.IKey | undefined,
): Pick<sqs.QueueProps, 'encryption' | 'encryptionMasterKey'> =>
  key === undefined
    ? { encryption: sqs.QueueEncryption.SQS_MANAGED }
    : { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key };

/**
 * Every log group of a stage under the logs key, its nested stacks' included: an aspect, so that
 * a log group added anywhere later is encrypted too (test/infra/kms.test.ts checks each one).
 */
export function encryptLogGroups(scope: IConstruct, key: kms.IKey): void {
  const aspect: IAspect = {
    visit(node: IConstruct): void {
      if (node instanceof logs.CfnLogGroup && node.kmsKeyId === undefined) node.kmsKeyId = key.keyArn;
    },
  };
  Aspects.of(scope).add(aspect);
}
