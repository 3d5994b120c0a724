/**
 * The deterministic sandbox processor (docs/product.md#sandbox-processor). Outcomes follow the
 * test-card table. Like a real acquirer it keeps its own ledger, keyed by idempotency key, in
 * the service table (`SANDBOX#<kind>#<key>` items, its own keys: sandbox-keys.ts): a repeated key
 * replays the recorded result and charges nothing (the ledger's `calls` counter shows the
 * replay). The card number never reaches the ledger: tokenization turns it into the card's
 * behaviour profile plus a random id. Each entry is also on a day index (GSI1
 * `SANDBOX#DAY#<yyyy-mm-dd>#<shard>` / `<time>#<kind>#<key>`, store/day-index.ts), from which
 * `listActivity` answers as an acquirer's activity report would.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DECLINE_CODES } from '#domain/declines';
import { queryDays } from '#store/day-index';
import { listAccountUpdates, recordAccountUpdate } from './sandbox-account-updates';
import type {
  AccountUpdate,
  PaymentProcessor,
  ProcessorActivity,
  ReversalRequest,
  ReversalResult,
  SaleRequest,
  SaleResult,
  TokenizeRequest,
  UnansweredRequest,
  NumberedAccount,
  Vaulted,
} from './processor';
import { BadRequestError } from '#shared/errors';
import { clock, sleep } from '#shared/clock';
import { nextCutoff, type SettlementSchedule } from './cut-offs';
import { LEDGER_DAYS, sandboxKeys, type LedgerKind } from './sandbox-keys';

/**
 * Test cards: number → behaviour profile (a decline code, `p5000` partial up to 50.00). Every one
 * passes the service's card checks (Luhn, Visa), so its outcome is the processor's answer at sale
 * time: `14` is a well-formed number no issuer knows (a Luhn-invalid one never gets here: 400).
 * `96` is the processor answering that it lost the issuer link: a definite decline that moved no
 * money, the same code and category the service records when the processor itself gives no
 * answer (core/sale.ts reverses that sale under its key, then answers Declined 96).
 */
export const SANDBOX_CARDS: Record<string, string> = {
  '4000000000000044': '04',
  '4000000000000002': '05',
  '4000000000000135': '13',
  '4000000000000143': '14',
  '4000000000009987': '41',
  '4000000000009979': '43',
  '4000000000000069': '54',
  '4000000000000572': '57',
  '4000000000000622': '62',
  '4000000000000788': '78',
  '4000000000003113': '1A',
  '4000000000000804': 'R0',
  '4000000000000200': 'R2',
  '4000000000000127': 'N7',
  '4000000000009995': '51',
  '4000000000000119': '91',
  '4000000000006975': '61',
  '4000000000000960': '96',
  '4000000000000077': 'p5000',
  // Recovers: the first sale on a saved method with this number declines 51, every later one approves.
  '4000000000000341': 'r51',
  // Mastercard: declines 51 (category 2) with merchant advice code 03 (do not try again).
  '5100000000000412': '51a03',
};

/**
 * The sandbox's fingerprint key: a fingerprint is a keyed hash of the number (HMAC-SHA256), as
 * an acquirer's is, so it names a card without letting anyone who reads it recover the number
 * by hashing candidates. A real adapter returns its acquirer's fingerprint instead.
 */
const FINGERPRINT_KEY = 'scheduled-payments-sandbox-fingerprint-v1';

/** The sandbox's fingerprint of a card number or a bank account (routing and account number). */
export function sandboxFingerprint(request: NumberedAccount): string {
  const subject =
    request.kind === 'bank'
      ? `bank:${request.routingNumber}:${request.accountNumber}`
      : `card:${request.number}`;
  return `fp_${createHmac('sha256', FINGERPRINT_KEY).update(subject).digest('base64url').slice(0, 32)}`;
}

/**
 * Test bank accounts (CHECKING, any valid routing number): account number → decline code, as an
 * ACH return would give them (R01 insufficient funds, R02 account closed). Other accounts approve.
 */
export const SANDBOX_BANK_ACCOUNTS: Record<string, string> = {
  '9900000001': '51',
  '9900000002': 'R2',
};

/** The behaviour profile a method's token carries: a test number's, else `ok` or `bank`. */
export function sandboxProfile(request: NumberedAccount): string {
  if (request.kind === 'bank') return SANDBOX_BANK_ACCOUNTS[request.accountNumber] ?? 'bank';
  return SANDBOX_CARDS[request.number] ?? 'ok';
}

export { nextCutoff } from './cut-offs';

/** What a ledger entry keeps of its request besides the key: what the activity report shows. */
interface LedgerRequest {
  merchantId?: string;
  amountCents?: number;
  originalProcessorTransactionId?: string;
}

/** A ledger item's attributes: its keys, its day-index entry, the request and the result. */
function ledgerItem(kind: LedgerKind, key: string, request: LedgerRequest, result: object, at: string) {
  return {
    ...sandboxKeys.ledger(kind, key),
    ...sandboxKeys.ledgerDay(kind, key, at),
    entity: 'sandbox-ledger',
    kind,
    idempotencyKey: key,
    ...request,
    at,
    result,
  };
}

export class SandboxProcessor implements PaymentProcessor {
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

  /** Records a result under its key once; a repeated key gets the recorded result back. */
  private async once<T extends object>(
    kind: LedgerKind,
    key: string,
    request: LedgerRequest,
    decide: () => T | Promise<T>,
  ): Promise<T> {
    const Key = sandboxKeys.ledger(kind, key);
    const result = await decide();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...ledgerItem(kind, key, request, result, clock.now().toISOString()), calls: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return result;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
    }
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

  async sale(request: SaleRequest): Promise<SaleResult> {
    await this.answerLater();
    const { merchantId, amountCents } = request;
    return this.once('SALE', request.idempotencyKey, { merchantId, amountCents }, async () => {
      const profile = request.token.split('.')[1] ?? 'ok';
      const base = { processorTransactionId: `sbx_${randomUUID()}`, processedAt: clock.now().toISOString() };
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
      if (profile === 'ok' || profile === 'bank') return approve(request.amountCents);
      return decline(profile);
    });
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
    // Whether or not the sale got here, afterwards it has moved no money: the ledger entry (new or
    // existing) now holds the reversed answer, which a repeated key gets from then on.
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...ledgerItem(
            'SALE',
            request.idempotencyKey,
            { merchantId: request.merchantId },
            reversed,
            reversed.processedAt,
          ),
          calls: 0,
          reversed: true,
        },
      }),
    );
  }

  private async reversal(kind: 'VOID' | 'REFUND', request: ReversalRequest): Promise<ReversalResult> {
    await this.answerLater();
    const { merchantId, amountCents, processorTransactionId } = request;
    const entry = { merchantId, amountCents, originalProcessorTransactionId: processorTransactionId };
    return this.once(kind, request.idempotencyKey, entry, () => ({
      approved: true,
      processorTransactionId: `sbx_${randomUUID()}`,
      responseCode: '00',
      responseMessage: kind === 'VOID' ? 'Voided' : 'Refund accepted',
      processedAt: clock.now().toISOString(),
    }));
  }

  void(request: ReversalRequest): Promise<ReversalResult> {
    return this.reversal('VOID', request);
  }

  refund(request: ReversalRequest): Promise<ReversalResult> {
    return this.reversal('REFUND', request);
  }

  /** The ledger's entries by time, from the day index (every partition of each day of the window). */
  async listActivity(since: string, until: string = clock.now().toISOString()): Promise<ProcessorActivity[]> {
    // Sort keys are `<time>#…`: BETWEEN takes `since` itself and stops before `until`.
    const items = await queryDays(this.db, this.tableName, LEDGER_DAYS, { since, until });
    return items.map(activityOf);
  }
}

/** A ledger item as a line of the activity report. */
function activityOf(item: Record<string, unknown>): ProcessorActivity {
  const kind = item.kind as LedgerKind;
  const result = item.result as SaleResult | ReversalResult;
  const amount = 'approvedCents' in result ? result.approvedCents : Number(item.amountCents ?? 0);
  return {
    kind: kind === 'SALE' ? 'sale' : kind === 'VOID' ? 'void' : 'refund',
    idempotencyKey: item.idempotencyKey as string,
    merchantId: item.merchantId as string,
    processorTransactionId: result.processorTransactionId,
    ...(item.originalProcessorTransactionId !== undefined && {
      originalProcessorTransactionId: item.originalProcessorTransactionId as string,
    }),
    approved: result.approved,
    amountCents: result.approved ? amount : 0,
    responseCode: result.responseCode,
    at: item.at as string,
  };
}
