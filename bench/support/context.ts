/**
 * What every bench section gets: the configuration, the running runtime, an authenticated
 * keep-alive API client, a raw DynamoDB document client on the runtime's DynamoDB Local, shared
 * fixtures (created once, on first use) and the two measuring helpers, one per side.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambdas/shared/ddb';
import { mapLimit } from '../../lambdas/shared/concurrency';
import { countCall } from './count-call';
import { httpClient, type HttpClient } from './http';
import { runSlice, steadyCpuPerOp, summarize, type LoadResult, type Operation, type Slice } from './load';
import type { BenchRuntime } from './runtime';

export const MID = '32350000001';
export const CLIENT = { id: 'local-tester', secret: 'local-tester-secret' };

export interface BenchConfig {
  concurrency: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Slices per side the measured duration is cut into, alternating API and raw. */
  rounds: number;
  /** Which side opens the first round (then they alternate: A B, B A, ...); `--order=raw,api`. */
  order: ('api' | 'raw')[];
  /** Groups the merchant has while the list is measured. */
  listGroups: number;
  /** Groups the create-payment load is spread over (per side). */
  paymentGroups: number;
  pageSize: number;
  /** Payments of each group the processing section creates (issue 4: 10,000). */
  processingPayments: number;
  /** Payments (each asking for a receipt) of the receipts section's group (issue 25: 10,000). */
  receiptsPayments: number;
  /** Payments of the delivery section's group, whose processing's events are delivered (issue 18: 10,000). */
  deliveryPayments: number;
  /**
   * The runtime's webhook queue invocations at once (its LOCAL_WEBHOOK_CONCURRENCY): prod's 40
   * unless `--webhook-concurrency` or LOCAL_WEBHOOK_CONCURRENCY say otherwise (docs/operating.md
   * "Benchmark": delivery measured as prod runs it).
   */
  webhookConcurrency: number;
  /** Payments of the group-report section's group. */
  reportPayments: number;
  /** The runtime's SANDBOX_SETTLEMENT_SECONDS: the settlement wait of a processed group's execution. */
  settlementSeconds: number;
  /** The runtime's grant cache TTL (its default unless AUTHZ_CACHE_SECONDS is set). */
  authzCacheSeconds: number;
  /** Measured requests per route of the handler-cpu section (each after a few unmeasured ones). */
  handlerRequests: number;
  /** The peak-slot model's seed (its workload and jitter) and the processor's rate (charges/s). */
  peakSeed: number;
  processorRate: number;
}

/** One measured side of a workload, with the DynamoDB calls it made per operation. */
export interface PhaseResult extends LoadResult {
  /**
   * DynamoDB calls per operation (ramps included), by command name: for the API side all the
   * runtime made; for the raw side the raw client's, plus the runtime's background calls
   * (`Streams.GetRecords`...) made meanwhile.
   */
  ddbCallsPerOp: Record<string, number>;
}

export interface Pair {
  api: PhaseResult;
  raw: PhaseResult;
  /**
   * The CPU-cost ratio (raw CPU per request over API CPU per request) of each round alone: how far
   * one round's two slices drift from the whole run's ratio on this machine.
   */
  cpuRatioByRound: number[];
}

export interface BenchContext {
  readonly config: BenchConfig;
  readonly runtime: BenchRuntime;
  readonly api: HttpClient;
  readonly db: DynamoDBDocumentClient;
  /** `{payorId}/{savedPaymentMethodId}` of the bench payor (one VISA card). */
  profileId(): Promise<string>;
  /** Creates pending groups (scheduled a week ahead); returns their ids. */
  createGroups(count: number): Promise<string[]>;
  /** How many groups the merchant has (all statuses). */
  groupCount(): Promise<number>;
  /**
   * Measures an API operation against its raw DynamoDB twin: a warm-up of each, then `rounds`
   * rounds of one slice per side in A B, B A order, so that drift (DynamoDB Local's JIT still
   * compiling, its table growing, other work on the machine) falls on both sides alike. DynamoDB calls are
   * counted inside the runtime for the API side, and by the counting client `raw` gets for the raw side.
   */
  measurePair(api: Operation, raw: (db: DynamoDBDocumentClient) => Operation): Promise<Pair>;
}

/** Load before each measured slice (connections and caches are warm already; this is the queue). */
const RAMP_MS = 500;

/**
 * The bench's groups are scheduled a week ahead: the runtime's hourly scheduler processes due
 * groups, and a group for "tomorrow" created just before midnight UTC is due an hour later.
 */
export const scheduleDate = (): string => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

/** An access token of `client` (a seeded local client: lib/local/identities.ts). */
export async function getToken(url: string, client = CLIENT): Promise<string> {
  const res = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A client on `db` that counts every call first (the raw side's, as ddb-census.ts counts the runtime's). */
export function countingClient(
  db: DynamoDBDocumentClient,
  counts: Record<string, number>,
): DynamoDBDocumentClient {
  const counted = Object.create(db) as DynamoDBDocumentClient;
  counted.send = ((command: object, ...rest: unknown[]) => {
    countCall(counts, command);
    return (db.send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as DynamoDBDocumentClient['send'];
  return counted;
}

/** A payor with one VISA card, created through the API; returns its `{payorId}/{methodId}` profile. */
export async function createProfile(api: HttpClient, addressLine = '1 Bench Way'): Promise<string> {
  const payor = await api.json<{ payorId: string; defaultPaymentMethodId: string }>(
    'POST',
    `/v1/rest/merchants/${MID}/payors`,
    {
      paymentMethod: {
        accountType: 'VISA',
        cardNumber: '4111111111111111',
        expiryMonth: 12,
        expiryYear: new Date().getUTCFullYear() + 1,
        billingAddress: {
          line1: addressLine,
          city: 'Springfield',
          state: 'OR',
          postalCode: '97475',
          country: 'US',
        },
      },
    },
    201,
  );
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

/** Calls per operation, by name, rounded; names never called are left out. */
const perOp = (counts: Record<string, number>, ops: number) =>
  Object.fromEntries(
    Object.entries(counts)
      .map(([k, n]): [string, number] => [k, Math.round((n / Math.max(ops, 1)) * 1000) / 1000])
      .filter(([, v]) => v > 0),
  );

export async function createContext(config: BenchConfig, runtime: BenchRuntime): Promise<BenchContext> {
  const token = await getToken(runtime.url);
  const api = httpClient(runtime.url, { maxSockets: config.concurrency, token: () => token });
  // The handlers' client (lambdas/shared/ddb.ts documentClient), on the same endpoint.
  const db = documentClient(
    new DynamoDBClient({
      endpoint: runtime.dynamodbEndpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 4,
    }),
  );

  let profile: Promise<string> | undefined;
  let hour = 0;
  return {
    config,
    runtime,
    api,
    db,
    profileId() {
      profile ??= createProfile(api);
      return profile;
    },
    async createGroups(count) {
      const date = scheduleDate();
      return mapLimit(Array.from({ length: count }), 8, async () => {
        const group = await api.json<{ paymentGroupId: string }>(
          'POST',
          `/rest/merchants/${MID}/groups`,
          { servicePayId: MID, scheduleDate: date, scheduleHour: hour++ % 24, locationId: 42 },
          201,
        );
        return group.paymentGroupId;
      });
    },
    async groupCount() {
      const page = await api.json<{ meta: { totalItems: number } }>(
        'GET',
        `/rest/merchants/${MID}/groups?pageNumber=1&pageSize=1`,
        undefined,
        200,
      );
      return page.meta.totalItems;
    },
    async measurePair(apiOp, rawOpOf) {
      const counts: Record<string, number> = {};
      const rawOp = rawOpOf(countingClient(db, counts));
      const ops = { api: apiOp, raw: rawOp };
      const base = { concurrency: config.concurrency, cpuPids: [runtime.pid] };
      for (const side of config.order)
        await runSlice(ops[side], { ...base, rampMs: config.warmupSeconds * 1000, durationMs: 0 });
      for (const k of Object.keys(counts)) delete counts[k];

      const slices: Record<'api' | 'raw', Slice[]> = { api: [], raw: [] };
      // Calls the runtime made during each side's slices: the API side's handler calls, and on
      // both sides the runtime's background calls (its stream reader reads what either wrote).
      const runtimeCalls: Record<'api' | 'raw', Record<string, number>> = { api: {}, raw: {} };
      const sliceMs = (config.durationSeconds * 1000) / config.rounds;
      for (let r = 0; r < config.rounds; r++) {
        // A B, B A, A B, ...: a linear drift (DynamoDB Local's JIT still compiling, the table
        // growing) costs both sides alike, whichever goes first.
        const order = r % 2 === 0 ? config.order : [...config.order].reverse();
        for (const side of order) {
          const before = await runtime.census();
          const slice = await runSlice(ops[side], { ...base, rampMs: RAMP_MS, durationMs: sliceMs });
          const after = await runtime.census();
          slices[side].push(slice);
          for (const [k, n] of Object.entries(after)) {
            runtimeCalls[side][k] = (runtimeCalls[side][k] ?? 0) + n - (before[k] ?? 0);
          }
        }
      }
      const opsOf = (side: 'api' | 'raw') => slices[side].reduce((n, s) => n + s.operations, 0);
      // The raw side: the raw client's calls plus what the runtime did meanwhile (in the background).
      const rawCalls = { ...counts };
      for (const [k, n] of Object.entries(runtimeCalls.raw)) rawCalls[k] = (rawCalls[k] ?? 0) + n;
      return {
        api: { ...summarize(slices.api), ddbCallsPerOp: perOp(runtimeCalls.api, opsOf('api')) },
        raw: { ...summarize(slices.raw), ddbCallsPerOp: perOp(rawCalls, opsOf('raw')) },
        cpuRatioByRound: slices.api.map((a, r) => steadyCpuPerOp(slices.raw[r]!) / steadyCpuPerOp(a)),
      };
    },
  };
}
