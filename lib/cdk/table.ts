/** The service's single DynamoDB table, built from the one table definition in contract/table.ts. */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { tableDef, tableName, type KeyDef } from '../../contract/table';

const attribute = (key: KeyDef): dynamodb.Attribute => ({
  name: key.name,
  type: key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER,
});

/**
 * Prod's table is pre-warmed to serve this many write units a second at once (on-demand warm
 * throughput; a new on-demand table serves 4,000), and GSI1 (a merchant's events, the day index) as
 * many as its own: the busiest slot's model peaks at about 33,000 units a second in all (docs/operating.md
 * "The busiest slot": 1,000 charges a second, about 21 units each as the bench measured them on
 * 2026-11-26, 15 on the table, 4 on GSI1 and 2 on GSI2, and the rate limiter's writes), so a first
 * busy slot is not table-bound. GSI2 (the sweep index, about 2,700 at the peak) stays under a new
 * index's 4,000. A one-time charge, no standing cost.
 */
export const PROD_WARM_WRITE_UNITS = 30_000;
export const PROD_WARM_INDEX_WRITE_UNITS: Readonly<Record<string, number>> = { gsi1: 8_000 };

interface ServiceTableProps {
  readonly stage: Stage;
  /**
   * Keep the table (and refuse its deletion) when the stack or the resource goes away.
   * @default - true in prod, false otherwise
   */
  readonly retain?: boolean;
  /**
   * The customer-managed key of the table (prod, lib/cdk/keys.ts).
   * @default - the AWS owned key
   */
  readonly encryptionKey?: kms.IKey;
}

export class ServiceTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    super(scope, id);
    const retain = props.retain ?? props.stage === 'prod';

    this.table = new dynamodb.Table(this, 'Table', {
      tableName: tableName(props.stage),
      partitionKey: attribute(tableDef.partitionKey),
      sortKey: attribute(tableDef.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      ...(props.stage === 'prod' && { warmThroughput: { writeUnitsPerSecond: PROD_WARM_WRITE_UNITS } }),
      stream: dynamodb.StreamViewType[tableDef.stream],
      timeToLiveAttribute: tableDef.timeToLiveAttribute,
      // Payment records: recovery to any second of the last 35 days on every stage.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...(props.encryptionKey !== undefined && {
        encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
        encryptionKey: props.encryptionKey,
      }),
      deletionProtection: retain,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    for (const index of tableDef.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
        ...(props.stage === 'prod' &&
          PROD_WARM_INDEX_WRITE_UNITS[index.indexName] !== undefined && {
            warmThroughput: { writeUnitsPerSecond: PROD_WARM_INDEX_WRITE_UNITS[index.indexName] },
          }),
      });
    }
  }
}
