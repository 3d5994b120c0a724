/**
 * Merchants' accounts at a processor that keeps one per merchant (Stripe Connect: each merchant's
 * connected account, `acct_…`), kept in the merchant registry (admin-only items, keys.ts):
 *
 * - on both MID forms' registry items, `processorAccounts: {<processor>: <account>}`, which the
 *   adapter reads to charge;
 * - one item per account (`MID#<processor>:<account>` / `PROCESSOR_ACCOUNT`), the way back from
 *   an account to its merchant (a webhook names the account), listed on GSI1 for the jobs that
 *   read every account (reconciliation, the account updater);
 *
 * all written in one transaction with an audit record. A mapping is fixed once the merchant has
 * vaulted at its account (the adapter's `VAULTED#…` mark, written before it vaults): its methods
 * live there, and another account would not know them.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clock } from '#shared/clock';
import { keys } from './keys';
import { MerchantRegistry, type Merchant } from './merchants';

/** What a processor's account id looks like (Stripe's `acct_…`), by processor. */
const ACCOUNT_PATTERNS: Readonly<Record<string, RegExp>> = { stripe: /^acct_[A-Za-z0-9]{1,64}$/ };

class ProcessorAccountError extends Error {
  override readonly name = 'ProcessorAccountError';
}

/**
 * `account`, once it has the shape of the processor's account ids; else throws, without repeating
 * it: a secret key pasted in the account's place (the going-live steps name both) would be printed
 * whole.
 */
export function checkedAccountId(processor: string, account: string): string {
  const pattern = ACCOUNT_PATTERNS[processor];
  if (!pattern) throw new ProcessorAccountError(`no processor ${processor} keeps merchant accounts`);
  if (!pattern.test(account))
    throw new ProcessorAccountError(
      `the value given (${account.length} characters, not repeated) is not a ${processor} account id (${pattern.source})`,
    );
  return account;
}

export class ProcessorAccounts {
  private readonly registry: MerchantRegistry;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.registry = new MerchantRegistry(db, tableName);
  }

  /**
   * Maps a merchant (either MID form) to its account at `processor`, on both MID forms' items and
   * the account's own item, with an audit record, in one transaction. Refused when the account
   * belongs to another merchant, or when the merchant already has another account at which it
   * has vaulted methods. Mapping again to the same account changes nothing.
   */
  async map(
    mid: string,
    processor: string,
    account: string,
    actor: string,
    now = clock.now(),
  ): Promise<{ merchant: Merchant; previous?: string }> {
    checkedAccountId(processor, account);
    const merchant = await this.registry.find(mid);
    if (!merchant) throw new ProcessorAccountError(`merchant ${mid} is not registered`);
    const previous = merchant.processorAccounts?.[processor];
    if (previous === account) return { merchant, previous };
    const owner = await this.merchantOf(processor, account);
    if (owner !== undefined && owner !== merchant.merchantId)
      throw new ProcessorAccountError(`${account} is already the account of merchant ${owner}`);
    if (previous !== undefined && (await this.hasVaulted(processor, merchant.merchantId, previous)))
      throw new ProcessorAccountError(
        `merchant ${merchant.merchantId} has saved methods at ${previous}: its ${processor} account can no longer change (the methods would not be found at another)`,
      );
    const accounts = { ...merchant.processorAccounts, [processor]: account };
    const forms = [merchant.merchantId, ...(merchant.shortId ? [merchant.shortId] : [])];
    const at = now.toISOString();
    const auditId = randomUUID();
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...forms.map((form) => ({
            Update: {
              TableName: this.tableName,
              Key: keys.merchant(form),
              UpdateExpression: 'SET processorAccounts = :accounts',
              // Still this merchant's item, and still mapped as read (no other operator's change between).
              ConditionExpression:
                previous === undefined
                  ? 'merchantId = :m AND (attribute_not_exists(processorAccounts) OR attribute_not_exists(processorAccounts.#p))'
                  : 'merchantId = :m AND processorAccounts.#p = :previous',
              ExpressionAttributeNames: { '#p': processor },
              ExpressionAttributeValues: {
                ':accounts': accounts,
                ':m': merchant.merchantId,
                ...(previous !== undefined && { ':previous': previous }),
              },
            },
          })),
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.processorAccount(processor, account),
                gsi1pk: keys.processorAccounts(processor),
                gsi1sk: account,
                entity: 'processor-account',
                processor,
                account,
                merchantId: merchant.merchantId,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR merchantId = :m',
              ExpressionAttributeValues: { ':m': merchant.merchantId },
            },
          },
          ...(previous === undefined
            ? []
            : [{ Delete: { TableName: this.tableName, Key: keys.processorAccount(processor, previous) } }]),
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.audit(at, auditId),
                entity: 'audit',
                at,
                auditId,
                action: 'processor-account',
                actor,
                clientId: '',
                merchantId: merchant.merchantId,
                mid,
                processor,
                account,
                ...(previous !== undefined && { previous }),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return { merchant: { ...merchant, processorAccounts: accounts }, ...(previous && { previous }) };
  }

  /** The merchant (11-digit MID) whose account at `processor` this is, or undefined. */
  async merchantOf(processor: string, account: string): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.processorAccount(processor, account),
        ConsistentRead: true,
      }),
    );
    return Item?.merchantId as string | undefined;
  }

  /** Whether the adapter has vaulted (or begun to) for the merchant at this account. */
  private async hasVaulted(processor: string, merchantId: string, account: string): Promise<boolean> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': keys.processorVaults(processor, merchantId), ':sk': account },
        ConsistentRead: true,
      }),
    );
    return Items.length > 0;
  }
}
