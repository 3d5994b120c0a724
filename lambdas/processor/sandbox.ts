/**
 * The deterministic sandbox processor (docs/product.md#sandbox-processor). Outcomes follow the
 * test-number table (sandbox-profiles.ts). Like a real acquirer it keeps its own ledger, keyed by idempotency key, in
 * the service table (`SANDBOX#<kind>#<key>` items, its own keys: sandbox-keys.ts): a repeated key
 * replays the recorded result and charges nothing (the ledger's `calls` counter shows the
 * replay). The card number never reaches the ledger: tokenization turns it into the card's
 * behaviour profile plus a random id. Each entry is also on a day index (GSI1
 * `SANDBOX#DAY#<yyyy-mm-dd>#<shard>` / `<time>#<kind>#<key>`, store/day-index.ts), from which
 * `listActivity` answers as an acquirer's activity report would.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type PutCommandInput,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { DECLINE_CODES } from '#domain/declines';
import { queryDays } from '#store/day-index';
import { listAccountUpdates, recordAccountUpdate } from './sandbox-account-updates';
import {
  bringNoticesForward,
  listSandboxNotices,
  plannedNoticeItems,
  sandboxReturns,
  voidedMark,
} from './sandbox-notices';
import { NOTICE_PROFILES, sandboxFingerprint, sandboxProfile } from './sandbox-profiles';
import {
  ProcessorUnavailableError,
  type AccountUpdate,
  type PaymentProcessor,
  type ProcessorActivity,
  type ReversalRequest,
  type ReversalResult,
  type SaleRequest,
  type SaleResult,
  type TokenizeRequest,
  type UnansweredRequest,
  type NoticeListing,
  type NoticePage,
  type Vaulted,
} from './processor';
import { conditionOutcome, isConditionFailure, isConflict } from '#shared/ddb';
import { BadRequestError } from '#shared/errors';
import { clock, sleep } from '#shared/clock';
import { nextCutoff, type SettlementSchedule } from './cut-offs';
import { activityOf, ledgerItem, type LedgerRequest } from './sandbox-ledger';
import { LEDGER_DAYS, sandboxKeys, type LedgerKind } from './sandbox-keys';

export { nextCutoff } from './cut-offs';
export { SANDBOX_BANK_ACCOUNTS, SANDBOX_CARDS, sandboxFingerprint, sandboxProfile } from './sandbox-profiles';

/**
 * How often a timeout reversal reads its entry when writes meanwhile change it; then the sandbox is
 * unavailable (the sweeper reverses the sale later).
 */
const REVERSAL_READS = 5;

export class SandboxProcessor implements PaymentProcessor {
  /** A debit voided before its cut-off leaves the batch before the file goes out. */
  readonly voidsBankDebits = true;
  /** A void takes the sale out of its batch: no money moved, nothing a cardholder can dispute. */
  readonly voidIsRefund = false;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly schedule: SettlementSchedule,
    /** SANDBOX_LATENCY_MS: every call answers after this long, as a card network does (0.3-2 s). */
    private readonly latencyMs = 0,
  ) {}

  /** The network's round trip: throughput is measured at a realistic latency with it. */
  private async answerLater(): Promise<void> {
    if (this.latencyMs > 0) await sleep(this.latencyMs);
  }

  async tokenize(request: TokenizeRequest): Promise<Vaulted> {
    await this.answerLater();
    if ('processorToken' in request)
      throw new BadRequestError('processorToken: the sandbox processor vaults card and account numbers only');
    const token = `sbx.${sandboxProfile(request)}.${randomBytes(12).toString('hex')}`;
    // The account updater's test cards: the update the networks will report for this token.
    await recordAccountUpdate(this.db, this.tableName, request, token, sandboxFingerprint);
    return { token, fingerprint: sandboxFingerprint(request) };
  }

  /** The account updates recorded for test cards vaulted in the window (sandbox-account-updates.ts). */
  accountUpdates(since: string, until: string = clock.now().toISOString()): Promise<AccountUpdate[]> {
    return listAccountUpdates(this.db, this.tableName, since, until);
  }

  /**
   * Whether a sale under `key` is the first on the saved method of `token` (the recovering test
   * card): the first key to claim the token's mark is; a repeat of that key still is.
   */
  private async firstSaleOf(token: string, key: string): Promise<boolean> {
    const Key = sandboxKeys.firstSale(token);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Key, entity: 'sandbox-first-sale', idempotencyKey: key },
          ConditionExpression: 'attribute_not_exists(pk) OR idempotencyKey = :key',
          ExpressionAttributeValues: { ':key': key },
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
      return false;
    }
  }

  settlementTime(processedAt: string): string {
    return nextCutoff(processedAt, this.schedule);
  }

  /** The test clock: the sandbox settles by time alone, so settling now is answering now. */
  async settleNow(): Promise<{ settledAt: string }> {
    await this.answerLater();
    return { settledAt: clock.now().toISOString() };
  }

  /**
   * The ledger entry of a key (its recorded `result`, `calls` and `reversed` mark): how tests and
   * operators count the charges a key made at the sandbox.
   */
  async ledger(kind: LedgerKind, idempotencyKey: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: sandboxKeys.ledger(kind, idempotencyKey),
        ConsistentRead: true,
      }),
    );
    return Item;
  }

  /**
   * Records a result under its key once; a repeated key gets the recorded result back. `alongside`
   * gives the items written in the same transaction as the entry (a debit's planned notices).
   */
  private async once<T extends object>(
    kind: LedgerKind,
    key: string,
    request: LedgerRequest,
    decide: () => T | Promise<T>,
    alongside: (result: T) => Record<string, unknown>[] = () => [],
  ): Promise<T> {
    const Key = sandboxKeys.ledger(kind, key);
    const result = await decide();
    const entry = {
      TableName: this.tableName,
      Item: { ...ledgerItem(kind, key, request, result, clock.now().toISOString()), calls: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    if (await this.write(entry, alongside(result))) return result;
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key,
        UpdateExpression: 'ADD calls :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return Item!.result as T;
  }

  /**
   * Writes a ledger entry, with the items of `others` in the same transaction if any: false when
   * the entry's condition refused it. A transaction cancelled for a conflict or throttling wrote
   * nothing and is thrown, for the caller to ask again.
   */
  private async write(entry: PutCommandInput, others: Record<string, unknown>[]): Promise<boolean> {
    try {
      if (others.length === 0) await this.db.send(new PutCommand(entry));
      else
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: entry },
              ...others.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
            ],
          }),
        );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      return conditionOutcome(error, [[0, false]]);
    }
  }

  async sale(request: SaleRequest): Promise<SaleResult> {
    await this.answerLater();
    const { merchantId, amountCents, idempotencyKey } = request;
    const profile = request.token.split('.')[1] ?? 'ok';
    // An approved debit's notices (sandbox-notices.ts), planned with its ledger entry.
    const notices = (result: SaleResult) =>
      result.approved
        ? plannedNoticeItems(
            profile,
            {
              merchantId,
              idempotencyKey,
              token: request.token,
              processorTransactionId: result.processorTransactionId,
              settlesAt: this.settlementTime(result.processedAt),
              amountCents: result.approvedCents,
            },
            this.schedule.periodSeconds,
          )
        : [];
    return this.once(
      'SALE',
      idempotencyKey,
      { merchantId, amountCents },
      async () => {
        const base = {
          processorTransactionId: `sbx_${randomUUID()}`,
          processedAt: clock.now().toISOString(),
        };
        const approve = (cents: number, code = '00', message = 'Approved'): SaleResult => ({
          ...base,
          approved: true,
          responseCode: code,
          responseMessage: message,
          approvedCents: cents,
          authCode: randomBytes(3).toString('hex').toUpperCase(),
        });
        const decline = (code: string, merchantAdviceCode?: string): SaleResult => ({
          ...base,
          approved: false,
          responseCode: code,
          responseMessage: DECLINE_CODES[code]?.message ?? 'Declined',
          approvedCents: 0,
          ...(merchantAdviceCode !== undefined && { merchantAdviceCode }),
        });
        if (profile === 'r51')
          return (await this.firstSaleOf(request.token, request.idempotencyKey))
            ? decline('51')
            : approve(request.amountCents);
        const advised = /^(\w+)a(\d\d)$/.exec(profile);
        if (advised) return decline(advised[1]!, advised[2]);
        if (profile.startsWith('p')) {
          const limit = Number(profile.slice(1));
          if (request.amountCents <= limit) return approve(request.amountCents);
          return request.allowPartial ? approve(limit, '10', 'Partially approved') : decline('51');
        }
        if (profile === 'ok' || profile === 'bank' || NOTICE_PROFILES.has(profile))
          return approve(request.amountCents);
        return decline(profile);
      },
      notices,
    );
  }

  async reverseUnanswered(
    request: Pick<UnansweredRequest, 'idempotencyKey'> & { merchantId?: string },
  ): Promise<void> {
    await this.answerLater();
    const reversed: SaleResult = {
      approved: false,
      processorTransactionId: `sbx_${randomUUID()}`,
      responseCode: '96',
      responseMessage: 'Reversed: the processor did not answer in time',
      approvedCents: 0,
      processedAt: clock.now().toISOString(),
    };
    const Key = sandboxKeys.ledger('SALE', request.idempotencyKey);
    const Item = {
      ...ledgerItem(
        'SALE',
        request.idempotencyKey,
        { merchantId: request.merchantId },
        reversed,
        reversed.processedAt,
      ),
      calls: 0,
      reversed: true,
    };
    // Whether or not the sale got here, afterwards it has moved no money: the ledger entry (new or
    // existing) now holds the reversed answer, which a repeated key gets from then on. An approved
    // sale's planned notices are taken back with it, as a void's are (sandbox-notices.ts). The entry
    // is replaced only while it is what was read: a sale that lands meanwhile is read again.
    for (let read = 1; read <= REVERSAL_READS; read++) {
      const { Item: found } = await this.db.send(
        new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
      );
      const sale = found?.result as SaleResult | undefined;
      const unchanged = sale
        ? {
            ConditionExpression: '#result.#charge = :read',
            ExpressionAttributeNames: { '#result': 'result', '#charge': 'processorTransactionId' },
            ExpressionAttributeValues: { ':read': sale.processorTransactionId },
          }
        : { ConditionExpression: 'attribute_not_exists(pk)' };
      const takenBack = sale?.approved ? [voidedMark(sale.processorTransactionId, reversed.processedAt)] : [];
      // Refused: a sale (or another reversal) landed since the read; a conflict: one is landing.
      try {
        if (await this.write({ TableName: this.tableName, Item, ...unchanged }, takenBack)) return;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    throw new ProcessorUnavailableError(
      'the sandbox could not record the timeout reversal: its entry kept changing',
    );
  }

  private async reversal(kind: 'VOID' | 'REFUND', request: ReversalRequest): Promise<ReversalResult> {
    await this.answerLater();
    const { merchantId, amountCents, processorTransactionId } = request;
    const entry = { merchantId, amountCents, originalProcessorTransactionId: processorTransactionId };
    return this.once(
      kind,
      request.idempotencyKey,
      entry,
      () => ({
        approved: true,
        processorTransactionId: `sbx_${randomUUID()}`,
        responseCode: '00',
        responseMessage: kind === 'VOID' ? 'Voided' : 'Refund accepted',
        processedAt: clock.now().toISOString(),
      }),
      // A voided debit leaves the batch before the file goes out, and a voided authorization is no
      // charge to dispute: the charge's planned notices are never sent (sandbox-notices.ts).
      (result) =>
        kind === 'VOID' && result.approved ? [voidedMark(processorTransactionId, result.processedAt)] : [],
    );
  }

  void(request: ReversalRequest): Promise<ReversalResult> {
    return this.reversal('VOID', request);
  }

  refund(request: ReversalRequest): Promise<ReversalResult> {
    return this.reversal('REFUND', request);
  }

  /** The notices due since the cursor (sandbox-notices.ts): the backstop's listing. */
  listNotices(request: NoticeListing): Promise<NoticePage> {
    return listSandboxNotices(this.db, this.tableName, {
      ...request,
      now: request.now ?? clock.now().toISOString(),
    });
  }

  /** The test clock: the merchant's notices due at the next cut-off are due now. */
  async noticesNow(request: { merchantId: string }): Promise<{ broughtForward: number }> {
    const now = clock.now().toISOString();
    return { broughtForward: await bringNoticesForward(this.db, this.tableName, request.merchantId, now) };
  }

  /** The ledger's entries by time, from the day index (every partition of each day of the window). */
  async listActivity(since: string, until: string = clock.now().toISOString()): Promise<ProcessorActivity[]> {
    // Sort keys are `<time>#…`: BETWEEN takes `since` itself and stops before `until`.
    const [items, returns] = await Promise.all([
      queryDays(this.db, this.tableName, LEDGER_DAYS, { since, until }),
      // The returns of bank debits as a bank reports them, by when they were returned.
      sandboxReturns(this.db, this.tableName, since, until),
    ]);
    return [...items.map(activityOf), ...returns];
  }
}
