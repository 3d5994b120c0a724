/**
 * The lower bounds a slot's last answer cannot beat, one per limit, and the targets: the
 * last answer within 1.25 × the tightest (largest) of the physical bounds, every group's first
 * answer within 3 minutes of the slot.
 */
import { ITEMS, REGION, type PaymentCosts, type ServiceSettings } from './inputs';
import {
  DDB_ON_DEMAND_NEW_TABLE_WCU,
  DDB_PARTITION_WCU,
  DDB_TABLE_MAX_WCU,
  LAMBDA_ACCOUNT_CONCURRENCY,
  SFN_START_EXECUTION,
} from './quotas';

export const TARGETS = { lastAnswerFactor: 1.25, firstAnswerSeconds: 180 } as const;

export interface Bound {
  limit: string;
  seconds: number;
  /** A physical limit of the account or the processor, or one the service's configuration sets. */
  kind: 'physical' | 'configuration';
  movedBy: string;
}

/** Seconds one charge holds its place in a task: its DynamoDB calls, its CPU and the processor. */
const chargeSeconds = (c: PaymentCosts, latency: number) =>
  (c.callsBefore + c.callsAfter) * REGION.ddbCallSeconds + c.cpuSeconds + latency;

export function bounds(input: {
  sizes: readonly number[];
  latencySeconds: number;
  processorRate: number;
  costs: PaymentCosts;
  service: ServiceSettings;
}): Bound[] {
  const { sizes, costs, service: s } = input;
  const payments = sizes.reduce((a, b) => a + b, 0);
  const largest = Math.max(...sizes);
  const charge = chargeSeconds(costs, input.latencySeconds);
  return [
    {
      limit: `the processor's rate (${input.processorRate.toLocaleString('en-US')} charges/s)`,
      seconds: payments / input.processorRate,
      kind: 'physical',
      movedBy: 'the acquirer (a higher agreed rate); nothing in the service',
    },
    {
      limit: `the table's writes (${costs.tableWriteUnits} units a payment at the default cap of ${DDB_TABLE_MAX_WCU.toLocaleString('en-US')}/s)`,
      seconds: (payments * costs.tableWriteUnits) / DDB_TABLE_MAX_WCU,
      kind: 'physical',
      movedBy: 'a table quota raise; fewer or smaller writes per payment',
    },
    {
      limit: `the table's writes on a new on-demand table (${DDB_ON_DEMAND_NEW_TABLE_WCU.toLocaleString('en-US')}/s until it scales)`,
      seconds: (payments * costs.tableWriteUnits) / DDB_ON_DEMAND_NEW_TABLE_WCU,
      kind: 'configuration',
      movedBy: "pre-warming the table's on-demand throughput (warm throughput) to the slot's peak",
    },
    {
      limit: `the largest group's partition (${largest.toLocaleString('en-US')} × ${costs.partitionWriteUnits} units at ${DDB_PARTITION_WCU.toLocaleString('en-US')}/s)`,
      seconds: (largest * costs.partitionWriteUnits) / DDB_PARTITION_WCU,
      kind: 'physical',
      movedBy: "sharding the group's payment writes over several partition keys",
    },
    {
      limit: `the largest group's merchant's events partition (${largest.toLocaleString('en-US')} × ${costs.merchantIndexWriteUnits} units at ${DDB_PARTITION_WCU.toLocaleString('en-US')}/s)`,
      seconds: (largest * costs.merchantIndexWriteUnits) / DDB_PARTITION_WCU,
      kind: 'physical',
      movedBy: "sharding a merchant's events index (GSI1 EVENTS#<mid>)",
    },
    ...costs.indexLoads
      .filter((l) => l.scope === 'table')
      .map((l) => ({
        limit: `the ${l.index} index (${l.unitsPerPayment} units a payment over ${l.partitions} partitions at ${DDB_PARTITION_WCU.toLocaleString('en-US')}/s each)`,
        seconds: (payments * l.unitsPerPayment) / (l.partitions * DDB_PARTITION_WCU),
        kind: 'physical' as const,
        movedBy: 'more shards (lambdas/store/keys.ts, lambdas/store/day-index.ts)',
      })),
    {
      limit: `Lambda concurrency (${LAMBDA_ACCOUNT_CONCURRENCY.toLocaleString('en-US')} × ${s.concurrency} charges in flight)`,
      seconds: (payments * charge) / (LAMBDA_ACCOUNT_CONCURRENCY * s.concurrency),
      kind: 'physical',
      movedBy: 'an account concurrency raise, or more charges in flight per task (PROCESS_CONCURRENCY)',
    },
    {
      limit: `StartExecution (${sizes.length.toLocaleString('en-US')} starts, bucket ${SFN_START_EXECUTION.bucket.toLocaleString('en-US')}, ${SFN_START_EXECUTION.perSecond}/s)`,
      seconds: Math.max(0, sizes.length - SFN_START_EXECUTION.bucket) / SFN_START_EXECUTION.perSecond,
      kind: 'physical',
      movedBy: 'a Step Functions quota raise',
    },
    {
      limit: `the largest group's own fan-out (${largest.toLocaleString('en-US')} payments, ${s.fanOut} ranges × ${s.concurrency} in flight, ${charge.toFixed(3)} s a charge)`,
      seconds:
        (largest * charge) / (s.fanOut * s.concurrency) +
        ((largest * ITEMS.countBytesPerPayment) / ITEMS.queryBytes) * REGION.ddbCallSeconds,
      kind: 'configuration',
      movedBy: 'PROCESS_FAN_OUT and PROCESS_CONCURRENCY (more charges in flight for a large group)',
    },
  ];
}

/** The tightest physical bound: the slowest limit the slot must get through whatever it does. */
export const tightest = (all: readonly Bound[]): Bound =>
  all.filter((b) => b.kind === 'physical').reduce((a, b) => (b.seconds > a.seconds ? b : a));
