/**
 * How a stage is split into CloudFormation stacks (docs/architecture.md, "Stacks"). A stage stays
 * one stack, `ScheduledPayments-<stage>`, deployed by one `cdk deploy`: it holds what keeps state,
 * or a name or an identity others rely on (the table, the user pool, the REST API with its
 * resources, methods and stage, the state machines, the queues, the SES identity, the alarm topic,
 * the alarms and the dashboard). Nested stacks of it hold the functions, by concern: each
 * function with its role, policy, log group, event source mappings and invoke permissions.
 *
 * An API handler's stack comes from its area, the folder of its module under `lambdas/`
 * (`groups/create-group` → `groups` → ApiGroups); an area this table does not name goes to
 * DEFAULT_API_STACK. A nested stack exists once something is placed in it (CloudFormation refuses
 * an empty template), so the stacks of areas without routes yet cost nothing.
 *
 * A function's stack is part of its deployed identity: moving an area to another stack makes
 * CloudFormation create its functions there before it deletes them here, and their fixed names
 * collide. Map new areas; move a mapped one only together with new function names.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import type { Stage } from '../../contract/stage';

/** The nested stacks of a stage, by construct id, with what each holds. */
export const NESTED_STACKS = {
  ApiGroups: 'the functions of the group and payment routes',
  ApiPayors: 'the functions of the payor and saved payment method routes',
  ApiTransactions: 'the functions of the transaction routes',
  ApiProcessing: 'the functions of the processing trigger and test clock routes',
  ApiWebhooks: 'the functions of the webhook and event routes',
  ApiSettings: 'the functions of the merchant settings and return-rates routes',
  ApiSeries: 'the functions of the series routes',
  ApiOther: 'the functions of the routes of any area without a stack of its own',
  ProcessingFunctions: 'the task functions of the group processing state machine',
  VoidOrRefundFunctions: 'the task functions of the background void-or-refund state machine',
  ScheduledFunctions:
    'the functions EventBridge runs on a schedule: the hourly scheduler, the due start, the sweeper, the reconciliation, the webhook recovery, the daily series job, the account updater and the return-rates job',
  NotificationFunctions: 'the stream forwarder and the notifier of the e-mails',
  WebhookFunctions: 'the delivery function of the webhooks',
} as const;

export type NestedStackId = keyof typeof NESTED_STACKS;

/** An API handler's area: the folder of its module (`groups/create-group` → `groups`). */
export const areaOf = (handler: string): string => handler.split('/')[0] ?? handler;

/** The nested stack of each API area. */
export const API_AREA_STACKS: Readonly<Record<string, NestedStackId>> = {
  groups: 'ApiGroups',
  payments: 'ApiGroups',
  payors: 'ApiPayors',
  methods: 'ApiPayors',
  transactions: 'ApiTransactions',
  triggers: 'ApiProcessing',
  webhooks: 'ApiWebhooks',
  events: 'ApiWebhooks',
  settings: 'ApiSettings',
  'return-rates': 'ApiSettings',
  series: 'ApiSeries',
};

/** The stack of the API handlers whose area API_AREA_STACKS does not name. */
export const DEFAULT_API_STACK: NestedStackId = 'ApiOther';

/** The nested stack of an API handler's function. */
export const apiStackOf = (handler: string): NestedStackId =>
  API_AREA_STACKS[areaOf(handler)] ?? DEFAULT_API_STACK;

/** A stage stack's nested stacks, each made the first time something is placed in it. */
export class NestedStacks {
  private readonly stacks = new Map<NestedStackId, NestedStack>();

  constructor(
    private readonly parent: Stack,
    private readonly stage: Stage,
  ) {}

  /** The nested stack `id` of the stage stack. */
  of(id: NestedStackId): NestedStack {
    let stack = this.stacks.get(id);
    if (stack === undefined) {
      stack = new NestedStack(this.parent, id, {
        description: `Scheduled Payments Service (${this.stage}): ${NESTED_STACKS[id]}`,
      });
      this.stacks.set(id, stack);
    }
    return stack;
  }

  /** The nested stacks made so far, by id. */
  get all(): ReadonlyMap<NestedStackId, NestedStack> {
    return this.stacks;
  }
}
