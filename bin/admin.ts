/**
 * Operator command: register merchants (both MID forms) and grant or revoke a client's access,
 * against the local runtime or a deployed stage.
 *
 *   npm run admin -- register-merchant --mid 32350000009 --mid8 23500009 --name "Ogdenville Middle" [target]
 *   npm run admin -- grant  --client <app client id> --mid 32350000009 [target]
 *   npm run admin -- revoke --client <app client id> --mid 32350000009 [target]
 *   npm run admin -- grants --client <app client id> [target]
 *   npm run admin -- audit [--since <ISO-8601>] [--until <ISO-8601>] [--json] [target]
 *   npm run admin -- merchant --mid 23500009 [--stripe-account acct_...] [target]
 *   npm run admin -- merchant --stripe-account acct_... [target]
 *   npm run admin -- resend-notification --outbox notice:<paymentId> [target]
 *   npm run admin -- outbox --status failed|stuck|pending|sending|sent [--json] [target]
 *   npm run admin -- reconcile [--since <ISO-8601>] [--stale-minutes N] [--json] [target]
 *   npm run admin -- backfill-merchant-list [target]
 *   npm run admin -- backfill-method-uses [target]
 *   npm run admin -- backfill-method-indexes [target]
 *   npm run admin -- webhooks --failing [--json] [target]
 *   npm run admin -- account-updater [--json] [target]
 *   npm run admin -- --help
 *
 * target: --local (default; the running `npm start`, found through DATA_DIR/runtime.json) or
 * --stage dev|prod (the deployed table, with the usual AWS credentials and region). With --stage,
 * reconcile and account-updater invoke the stage's own function (bin/admin-cloud.ts) instead of
 * running the job here; grant and revoke record the caller's AWS identity in their audit record.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MerchantAdmin } from '../lambdas/store/merchant-admin';
import { checkedAccountId, ProcessorAccounts } from '../lambdas/store/processor-accounts';
import { listOutbox, requeue } from '../lambdas/store/outbox';
import { backfillMerchantList } from '../lambdas/store/merchant-list-backfill';
import { backfillMethodUses } from '../lambdas/store/method-uses-backfill';
import { backfillMethodIndexes } from '../lambdas/store/method-index-backfill';
import { backfillSeriesMethodUses } from '../lambdas/store/series-uses-backfill';
import { failingEndpoints } from '../lambdas/store/webhook-admin';
import type { OutboxStatus } from '../lambdas/domain/notifications';
import { runtimeFile } from '../lib/local/runtime';
import { parseStage } from '../contract/stage';
import { accountUpdaterHere, accountUpdaterInStage, reconcileHere, reconcileInStage } from './admin-jobs';
import { tableName } from '../contract/table';

const USAGE = `usage: npm run admin -- <command> [options] [--local | --stage dev|prod]
  --local (default) the running \`npm start\` (DATA_DIR/runtime.json); --stage the deployed table
  --help, -h        this text
commands:
  register-merchant --mid <11 digits> [--mid8 <8 digits>] --name <name>
  grant|revoke      --client <client id> --mid <8 or 11 digits>
  grants            --client <client id>
  audit             [--since <ISO-8601, default 30 days ago>] [--until <ISO-8601, default now>] [--json]
                    the audit records of grants, revocations and processor accounts (who, when,
                    what), oldest first
  merchant          --mid <8 or 11 digits> [--stripe-account <acct_...>]
                    the merchant; with --stripe-account, maps it (both MID forms) to that Stripe
                    connected account, once: refused once the merchant has saved methods there
  merchant          --stripe-account <acct_...>
                    the merchant a Stripe connected account belongs to
  resend-notification --outbox <outbox id, e.g. notice:<paymentId>>
  outbox            --status <failed|stuck|pending|sending|sent> [--json]
                    the e-mails of that status (reads the whole table)
  reconcile         [--since <ISO-8601, default 24 h ago>] [--stale-minutes <default 30>] [--json]
                    exits 1 when differences the sweeper could not heal remain; with --stage it
                    invokes the stage's reconciliation function (needs lambda:InvokeFunction)
  backfill-merchant-list
                    migration: lists for reconciliation every merchant registered before it
                    existed (reads the whole table; safe to repeat)
  backfill-method-uses
                    migration: records which saved method each unanswered payment of a pending
                    or processing group, and each payment of an active or paused series, uses,
                    so the method cannot be deleted from under it (reads those groups and the
                    merchants' series only; safe to repeat)
  account-updater   [--json]
                    applies the processor's account updates to saved methods now, as the daily
                    job does (each update once: safe to repeat); with --stage, the stage's own
                    function runs it
  backfill-method-indexes
                    migration: puts saved methods written before those indexes on the token and
                    expiry indexes (account updater, ?expiringBefore=); reads the whole table;
                    safe to repeat
  webhooks --failing [--json]
                    webhook endpoints with deliveries failed for good or being retried, or with
                    failed attempts in a row (reads the whole table)`;

function target(values: { local?: boolean; stage?: string }): {
  client: DynamoDBClient;
  table: string;
  where: string;
  /** The variables a function of this target would have (reconcile runs the functions' code). */
  env: Record<string, string>;
} {
  if (values.stage) {
    const stage = parseStage(values.stage);
    const env = { TABLE_NAME: tableName(stage), SERVICE_STAGE: stage };
    return { client: new DynamoDBClient({}), table: tableName(stage), where: `stage ${stage}`, env };
  }
  const dataDir = process.env.DATA_DIR ?? '.data';
  let runtime: {
    dynamodbEndpoint: string;
    tableName: string;
    settlement?: Record<string, string>;
    processorEnv?: Record<string, string>;
  };
  try {
    runtime = JSON.parse(readFileSync(runtimeFile(dataDir), 'utf8'));
  } catch {
    throw new Error(
      `no local runtime found (${join(dataDir, 'runtime.json')}): start it with \`npm start\`, or pass --stage`,
    );
  }
  const client = new DynamoDBClient({
    endpoint: runtime.dynamodbEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const env = {
    TABLE_NAME: runtime.tableName,
    SERVICE_STAGE: 'dev',
    AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    // The runtime's settlement schedule (SANDBOX_SETTLEMENT_SECONDS), so that a sale the sweeper
    // heals gets the cut-off the runtime's own handlers would give it.
    ...runtime.settlement,
    // The runtime's processor when it is not the sandbox (PROCESSOR=stripe: the stand-in's address and key).
    ...runtime.processorEnv,
  };
  return { client, table: runtime.tableName, where: `local runtime (${runtime.dynamodbEndpoint})`, env };
}

/** The commands (the switch below), known before the target is looked for. */
const COMMANDS: readonly string[] = [
  'register-merchant',
  'grant',
  'revoke',
  'grants',
  'audit',
  'merchant',
  'resend-notification',
  'webhooks',
  'outbox',
  'reconcile',
  'account-updater',
  'backfill-method-indexes',
  'backfill-merchant-list',
  'backfill-method-uses',
];

const OUTBOX_STATUSES: readonly OutboxStatus[] = ['failed', 'stuck', 'pending', 'sending', 'sent'];

/** The value of --<flag>, an ISO-8601 time, or the error naming it. */
function isoTime(value: string, flag: string): string {
  if (Number.isNaN(Date.parse(value))) throw new Error(`--${flag} ${value} is not an ISO-8601 time`);
  return value;
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new Error(`--${flag} is required\n${USAGE}`);
  return value;
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      mid: { type: 'string' },
      mid8: { type: 'string' },
      name: { type: 'string' },
      client: { type: 'string' },
      outbox: { type: 'string' },
      status: { type: 'string' },
      local: { type: 'boolean' },
      stage: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      'stale-minutes': { type: 'string' },
      json: { type: 'boolean' },
      failing: { type: 'boolean' },
      'stripe-account': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  // Asked for, the usage is the answer (stdout, exit 0); without a command it is the error.
  if (values.help || command === 'help') return void console.log(USAGE);
  if (!command) throw new Error(USAGE);
  if (!COMMANDS.includes(command)) throw new Error(`unknown command ${command}\n${USAGE}`);
  const { client, table, where, env } = target(values);
  const registry = new MerchantAdmin(DynamoDBDocumentClient.from(client), table);
  /** Who runs the command, for the audit record of a grant or revocation. */
  const actor = async (): Promise<string> => {
    const { cloudActor, localActor } = await import('./admin-cloud');
    if (!values.stage) return localActor();
    const { STSClient } = await import('@aws-sdk/client-sts');
    const sts = new STSClient({});
    try {
      return await cloudActor(sts);
    } finally {
      sts.destroy();
    }
  };
  switch (command) {
    case 'register-merchant': {
      const merchant = {
        merchantId: need(values.mid, 'mid'),
        shortId: values.mid8,
        name: need(values.name, 'name'),
      };
      // An 8-digit form another merchant holds is refused by the registry's condition: named here.
      const owner = merchant.shortId === undefined ? undefined : await registry.find(merchant.shortId);
      if (owner && owner.merchantId !== merchant.merchantId)
        throw new Error(
          `the 8-digit MID ${merchant.shortId} is merchant ${owner.merchantId}'s ("${owner.name}") in ${where}: choose another --mid8`,
        );
      await registry.register(merchant);
      console.log(
        `registered ${merchant.merchantId}${merchant.shortId ? ` (${merchant.shortId})` : ''} "${merchant.name}" in ${where}`,
      );
      break;
    }
    case 'grant': {
      const merchant = await registry.grant(
        need(values.client, 'client'),
        need(values.mid, 'mid'),
        await actor(),
      );
      console.log(`granted ${values.client} access to ${merchant.merchantId} "${merchant.name}" in ${where}`);
      break;
    }
    case 'revoke':
      if (!(await registry.revoke(need(values.client, 'client'), need(values.mid, 'mid'), await actor())))
        throw new Error(
          `${values.client} holds no grant of ${values.mid} in ${where}: nothing revoked (its grants: \`npm run admin -- grants --client ${values.client}\`)`,
        );
      console.log(
        `revoked ${values.client}'s access to ${values.mid} in ${where} (warm containers may honour it for up to AUTHZ_CACHE_SECONDS)`,
      );
      break;
    case 'grants':
      console.log(JSON.stringify(await registry.grantsOf(need(values.client, 'client')), null, 2));
      break;
    case 'audit': {
      const until = isoTime(values.until ?? new Date().toISOString(), 'until');
      const since = isoTime(
        values.since ?? new Date(Date.parse(until) - 30 * 24 * 3600_000).toISOString(),
        'since',
      );
      const records = await registry.auditTrail(new Date(since).toISOString(), new Date(until).toISOString());
      if (values.json) console.log(JSON.stringify(records, null, 2));
      else {
        console.log(`${records.length} grant(s) and revocation(s) from ${since} to ${until} in ${where}`);
        for (const r of records)
          console.log(
            r.action === 'processor-account'
              ? `${r.at}  ${r.processor} account ${r.account}${r.previous ? ` (was ${r.previous})` : ''}  merchant ${r.merchantId} (as ${r.mid})  by ${r.actor}`
              : `${r.at}  ${r.action.padEnd(6)}  client ${r.clientId}  merchant ${r.merchantId} (as ${r.mid})  by ${r.actor}`,
          );
      }
      break;
    }
    case 'merchant': {
      const account = values['stripe-account'];
      const accounts = new ProcessorAccounts(DynamoDBDocumentClient.from(client), table);
      if (values.mid === undefined && account !== undefined) {
        // The way back: the merchant of a connected account (a webhook names only the account).
        const owner = await accounts.merchantOf('stripe', checkedAccountId('stripe', account));
        if (owner === undefined) throw new Error(`${account} is no merchant's Stripe account in ${where}`);
        console.log(JSON.stringify(await registry.find(owner), null, 2));
        break;
      }
      const mid = need(values.mid, 'mid');
      if (account !== undefined) {
        const { merchant, previous } = await accounts.map(mid, 'stripe', account, await actor());
        console.log(
          previous === account
            ? `${merchant.merchantId} "${merchant.name}" is mapped to ${account} already in ${where}`
            : `mapped ${merchant.merchantId}${merchant.shortId ? ` (${merchant.shortId})` : ''} "${merchant.name}" to Stripe account ${account}${previous ? ` (was ${previous})` : ''} in ${where}`,
        );
        break;
      }
      const merchant = await registry.find(mid);
      if (!merchant) throw new Error(`merchant ${values.mid} is not registered in ${where}`);
      console.log(JSON.stringify(merchant, null, 2));
      break;
    }
    case 'resend-notification': {
      const item = await requeue(DynamoDBDocumentClient.from(client), table, need(values.outbox, 'outbox'));
      console.log(`queued ${item.outboxId} (${item.kind} to ${item.recipient}) again in ${where}`);
      break;
    }
    case 'webhooks': {
      if (!values.failing) throw new Error(`webhooks needs --failing\n${USAGE}`);
      const rows = await failingEndpoints(DynamoDBDocumentClient.from(client), table);
      if (values.json) console.log(JSON.stringify(rows, null, 2));
      else {
        console.log(`${rows.length} failing webhook endpoint(s) in ${where}`);
        for (const r of rows)
          console.log(
            `${r.webhookEndpointId}  merchant ${r.merchantId}  ${r.status}${r.disabledReason ? ` (${r.disabledReason})` : ''}  ${r.url}  failed ${r.failed}  retrying ${r.retrying}  in a row ${r.failuresInARow}${r.lastError ? `  last: ${r.lastError}` : ''}${r.lastAttemptAt ? ` at ${r.lastAttemptAt}` : ''}`,
          );
      }
      break;
    }
    case 'outbox': {
      const status = need(values.status, 'status');
      if (!OUTBOX_STATUSES.includes(status as OutboxStatus))
        throw new Error(`--status must be one of ${OUTBOX_STATUSES.join(', ')}\n${USAGE}`);
      const items = await listOutbox(DynamoDBDocumentClient.from(client), table, status as OutboxStatus);
      if (values.json) console.log(JSON.stringify(items, null, 2));
      else {
        console.log(`${items.length} ${status} e-mail(s) in ${where}`);
        for (const i of items)
          console.log(
            `${i.outboxId}  ${i.kind}  to ${i.recipient}  created ${i.createdAt}  attempts ${i.attempts}  throttles ${i.throttles ?? 0}${i.lastError ? `  ${i.lastError}` : ''}`,
          );
      }
      break;
    }
    case 'reconcile': {
      const since = isoTime(values.since ?? new Date(Date.now() - 24 * 3600_000).toISOString(), 'since');
      const stale = values['stale-minutes'];
      const staleMinutes = stale === undefined ? undefined : Number(stale);
      if (
        staleMinutes !== undefined &&
        !(stale!.trim() !== '' && Number.isFinite(staleMinutes) && staleMinutes >= 0)
      )
        throw new Error(`--stale-minutes ${stale} is not a number of minutes (0 or more)`);
      const report = values.stage
        ? await reconcileInStage(parseStage(values.stage), {
            since: new Date(since).toISOString(),
            staleMinutes,
          })
        : await reconcileHere(env, { since: new Date(since).toISOString(), staleMinutes });
      const { renderReport } = await import('../lambdas/core/reconcile-table');
      console.log(values.json ? JSON.stringify(report, null, 2) : `${where}\n${renderReport(report)}`);
      if (report.unhealed > 0) process.exitCode = 1;
      break;
    }
    case 'account-updater': {
      const report = values.stage
        ? await accountUpdaterInStage(parseStage(values.stage))
        : await accountUpdaterHere(env);
      console.log(
        values.json
          ? JSON.stringify(report, null, 2)
          : `${where}: ${report.listed} account update(s) from ${report.since} to ${report.until}; ` +
              `${report.applied} applied, ${report.appliedBefore} applied before, ` +
              `${report.noMethod} for no saved method, ${report.left} left for the next run`,
      );
      break;
    }
    case 'backfill-method-indexes': {
      const { indexed, alreadyIndexed } = await backfillMethodIndexes(
        DynamoDBDocumentClient.from(client),
        table,
      );
      console.log(`${indexed} saved method(s) indexed, ${alreadyIndexed} indexed already, in ${where}`);
      break;
    }
    case 'backfill-merchant-list': {
      const { added, alreadyListed } = await backfillMerchantList(DynamoDBDocumentClient.from(client), table);
      console.log(
        `${added.length} merchant(s) added to the reconciliation list, ${alreadyListed} listed already, in ${where}` +
          (added.length > 0 ? `: ${added.join(', ')}` : ''),
      );
      break;
    }
    case 'backfill-method-uses': {
      const { groups, written, atRisk } = await backfillMethodUses(
        DynamoDBDocumentClient.from(client),
        table,
      );
      console.log(
        `${written} method use(s) written for ${groups} pending or processing group(s) in ${where}` +
          (atRisk.length > 0
            ? `; ${atRisk.length} payment(s) name a method gone or being deleted (declined PM at processing, never charged): ${atRisk.join(', ')}`
            : ''),
      );
      const ofSeries = await backfillSeriesMethodUses(DynamoDBDocumentClient.from(client), table);
      console.log(
        `${ofSeries.written} method use(s) written for ${ofSeries.series} active or paused series in ${where}` +
          (ofSeries.atRisk.length > 0
            ? `; ${ofSeries.atRisk.length} series payment(s) name a method gone or being deleted (left out of each occurrence, never charged): ${ofSeries.atRisk.join(', ')}`
            : ''),
      );
      break;
    }
    default:
      throw new Error(`unknown command ${command}\n${USAGE}`);
  }
  client.destroy();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
