/**
 * The one table definition: CDK builds the DynamoDB table from it and the local runtime
 * creates the same table in DynamoDB Local. Access patterns (see lambdas/store/keys.ts):
 *
 * - base table  pk/sk      group + its payments (`GROUP#id` / `GROUP`, `PAYMENT#id`),
 *                          merchants, client grants, payors, methods, transactions
 * - GSI1        gsi1pk/sk  a merchant's groups by schedule slot (`MERCHANT#mid` / `2026-11-21T09#id`)
 *                          and its cards by expiry (`EXPIRY#mid` / `2027-03#payorId#methodId`)
 * - GSI2        gsi2pk/sk  sparse due index: only pending groups carry it (`DUE#shard` / `slot#id`),
 *                          so the scheduler finds due and missed groups with one Query per shard
 */
export interface KeyDef {
  readonly name: string;
  readonly type: 'S' | 'N';
}
interface IndexDef {
  readonly indexName: string;
  readonly partitionKey: KeyDef;
  readonly sortKey: KeyDef;
}
interface TableDef {
  readonly partitionKey: KeyDef;
  readonly sortKey: KeyDef;
  readonly globalSecondaryIndexes: readonly IndexDef[];
  /** Stream view type; the notifier consumes outbox items from the stream. */
  readonly stream: 'NEW_AND_OLD_IMAGES';
  /** Epoch-seconds attribute for TTL (idempotency and duplicate-check records). */
  readonly timeToLiveAttribute: string;
}

export const tableDef: TableDef = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
    },
    {
      indexName: 'gsi2',
      partitionKey: { name: 'gsi2pk', type: 'S' },
      sortKey: { name: 'gsi2sk', type: 'S' },
    },
  ],
  stream: 'NEW_AND_OLD_IMAGES',
  timeToLiveAttribute: 'expiresAt',
};

/** The physical table name of a stage. */
export const tableName = (stage: string): string => `scheduled-payments-${stage}`;

/**
 * Partition-key prefixes of the items only the operator's tool (`npm run admin`) writes: the
 * merchant registry (`MID#…`), the client-to-merchant grants (`CLIENT#…`) and the audit trail of
 * grants and revocations (`AUDIT#…`). No function may write them: every function that writes the
 * table holds an explicit Deny of writes whose partition key starts with one of these
 * (`dynamodb:LeadingKeys`, lib/cdk/access.ts), so a flaw in a function cannot grant its caller
 * another merchant. lambdas/store/keys.ts builds these keys from the same prefixes.
 */
export const ADMIN_ONLY_KEY_PREFIXES = ['MID#', 'CLIENT#', 'AUDIT#'] as const;
