/**
 * Key builders: every item's keys are made here and nowhere else (single-table design; see
 * contract/table.ts for the access patterns). Every item also carries an `entity` marker.
 */
import { createHash } from 'node:crypto';
import { ADMIN_ONLY_KEY_PREFIXES } from '#contract/table';
import { dayIndexEntry } from './day-index';
import { shardOf } from '#shared/shards';

/** The admin-only partitions (contract/table.ts): only `npm run admin` writes them. */
const [REGISTRY, GRANTS, AUDIT] = ADMIN_ONLY_KEY_PREFIXES;

/** Pending groups are spread over this many due-index partitions (no hot key at scale). */
export const DUE_SHARDS = 4;
/**
 * Pending sales and refunds are spread over this many sweep-index partitions: each sale sets its
 * entry and removes it (two index writes a charge), 2,000 a second at the processor's 1,000 charges
 * (8 from 2026-11-26, when 4 left a shard half its partition's 1,000 units; the sweep reads every
 * shard, so the entries of the first 4 are still found).
 */
export const SWEEP_SHARDS = 8;

/** Pending webhook deliveries are spread over this many due-index partitions. */
export const WEBHOOK_DUE_SHARDS = 4;

/** The service's day-indexed kinds of items (store/day-index.ts): its sales and its refunds. */
export type DayKind = 'TXN' | 'REFUND';

export const keys = {
  /** Merchant registry: one item per MID form (8 and 11 digits), both holding the 11-digit MID. */
  merchant: (mid: string) => ({ pk: `${REGISTRY}${mid}`, sk: 'MERCHANT' }),
  /** A client's grant for a merchant, one item per MID form: resolution and authorization in one read. */
  grant: (clientId: string, mid: string) => ({ pk: `${GRANTS}${clientId}`, sk: `MID#${mid}` }),
  /**
   * The audit trail of grants and revocations (`npm run admin -- grant|revoke`): one partition per
   * month, sorted by time, so that `npm run admin -- audit` reads a period with one Query per month.
   */
  audit: (at: string, auditId: string) => ({ pk: `${AUDIT}${at.slice(0, 7)}`, sk: `${at}#${auditId}` }),
  auditMonth: (month: string) => `${AUDIT}${month}`,
  group: (groupId: string) => ({ pk: `GROUP#${groupId}`, sk: 'GROUP' }),
  /**
   * A window of the processor's rate (store/rate-windows.ts): `RATE#<key>#<epochSecond>`, the key a
   * shard's number or `G#<groupId>`; a new partition every second, so no window stays hot.
   */
  rateWindow: (key: string, second: number) => ({ pk: `RATE#${key}#${second}`, sk: 'RATE' }),
  payment: (groupId: string, paymentId: string) => ({ pk: `GROUP#${groupId}`, sk: `PAYMENT#${paymentId}` }),
  paymentPrefix: 'PAYMENT#',
  payor: (payorId: string) => ({ pk: `PAYOR#${payorId}`, sk: 'PAYOR' }),
  method: (payorId: string, methodId: string) => ({ pk: `PAYOR#${payorId}`, sk: `METHOD#${methodId}` }),
  methodPrefix: 'METHOD#',
  /**
   * GSI1: a merchant's cards by expiry (`EXPIRY#mid` / `<yyyy-MM>#<payorId>#<methodId>`): every
   * card method carries it, so `?expiringBefore=` reads the cards expiring before a month with one
   * Query (a range below that month).
   */
  merchantExpiries: (merchantId: string) => `EXPIRY#${merchantId}`,
  expirySort: (month: string, payorId: string, methodId: string) => `${month}#${payorId}#${methodId}`,
  /**
   * GSI2: a method by its processor token (a hash of it: the token itself is in no key), so that
   * the account updater finds the method an acquirer's update names with one Query.
   */
  vaultToken: (token: string) => `VAULT#${createHash('sha256').update(token).digest('base64url')}`,
  vaultTokenSort: (payorId: string, methodId: string) => `${payorId}#${methodId}`,
  /**
   * A pending payment's use of a saved method (docs/architecture.md "Safe method deletion"): one
   * item per payment that names the method, in the method's own partition, written and removed in
   * the transaction that gives a payment its method, moves it, or deletes it; a consistent Query
   * lists them.
   */
  methodUse: (methodId: string, groupId: string, paymentId: string) => ({
    pk: `METHODUSE#${methodId}`,
    sk: `PAYMENT#${groupId}#${paymentId}`,
  }),
  /**
   * A series payment's use of a saved method, in the same partition: one item per payment of a
   * series that names the method (`SERIES#<seriesId>#<index>`), written with the series and moved
   * with its payment, so that a deletion finds the series that would charge the method.
   */
  methodSeriesUse: (methodId: string, seriesId: string, index: number) => ({
    pk: `METHODUSE#${methodId}`,
    sk: `SERIES#${seriesId}#${String(index).padStart(5, '0')}`,
  }),
  methodUses: (methodId: string) => `METHODUSE#${methodId}`,
  /**
   * The record written ahead of a method's (or a payor's) deletion: `METHOD#<id>` or `PAYOR`, in
   * the payor's deletion partition. GSI2 `DELETING` / `<due>#<payorId>#<target>` while it exists,
   * so the sweeper finishes or undoes one whose request died.
   */
  deletion: (payorId: string, target: 'PAYOR' | { methodId: string }) => ({
    pk: `DELETION#${payorId}`,
    sk: target === 'PAYOR' ? 'PAYOR' : `METHOD#${target.methodId}`,
  }),
  deletingPartition: 'DELETING',
  deletingSort: (due: string, payorId: string, target: string) => `${due}#${payorId}#${target}`,
  /** Uniqueness of customerAccountId per merchant, and its search entry. */
  customer: (merchantId: string, customerAccountId: string) => ({
    pk: `CUSTOMER#${merchantId}#${customerAccountId}`,
    sk: 'CUSTOMER',
  }),
  transaction: (transactionId: string) => ({ pk: `TXN#${transactionId}`, sk: 'TXN' }),
  refund: (transactionId: string, refundId: string) => ({
    pk: `TXN#${transactionId}`,
    sk: `REFUND#${refundId}`,
  }),
  refundPrefix: 'REFUND#',
  /**
   * Idempotency record of a request (scope `request`, `sale`, `refund:<transactionId>`...), by the
   * keyed hash of its key (shared/keyed-hash.ts), never the key as written; `=`, which no key
   * holds, sets the digest apart from a key.
   */
  idempotency: (merchantId: string, scope: string, keyDigest: string) => ({
    pk: `IDEM#${merchantId}#${scope}#=${keyDigest}`,
    sk: 'IDEM',
  }),
  /** An idempotency record kept by its key as written (before keys were hashed), until its TTL. */
  idempotencyAsWritten: (merchantId: string, scope: string, key: string) => ({
    pk: `IDEM#${merchantId}#${scope}#${key}`,
    sk: 'IDEM',
  }),
  /**
   * Duplicate-check guard: the last approved or in-flight sale of this amount on this method for
   * this orderId (docs/decisions.md "Duplicate check and orderId"; no orderId: sk `DUP`).
   */
  duplicateGuard: (merchantId: string, methodId: string, amountCents: number, orderId?: string) => ({
    pk: `DUP#${merchantId}#${methodId}#${amountCents}`,
    sk: orderId === undefined ? 'DUP' : `DUP#ORDER#${orderId}`,
  }),
  /** A series; its payments are items of its partition (`seriesPayment`), in their order. */
  series: (seriesId: string) => ({ pk: `SERIES#${seriesId}`, sk: 'SERIES' }),
  seriesPayment: (seriesId: string, index: number) => ({
    pk: `SERIES#${seriesId}`,
    sk: `PAYMENT#${String(index).padStart(5, '0')}`,
  }),
  /** GSI1: a merchant's series by creation (`<dateCreated>#<seriesId>`). */
  merchantSeries: (merchantId: string) => `SERIESLIST#${merchantId}`,
  merchantSeriesSort: (dateCreated: string, seriesId: string) => `${dateCreated}#${seriesId}`,
  /**
   * GSI2 (sparse): a series while the creation job has work for it, sorted by when (`<dueAt>#<id>`:
   * its next occurrence's creation time, or an unfinished cancel), so that the job reads what is
   * due with one Query.
   */
  seriesDuePartition: 'SERIESDUE',
  seriesDueSort: (dueAt: string, seriesId: string) => `${dueAt}#${seriesId}`,
  /**
   * A card's or bank account's history at a merchant (`cardKey`: its fingerprint, or
   * `method:<id>`): one item per attempt, sorted by when it began, which the retry limits count
   * (store/card-history.ts).
   */
  cardUse: (merchantId: string, cardKey: string, at: string, transactionId: string) => ({
    pk: `CARDUSE#${merchantId}#${cardKey}`,
    sk: `${at}#${transactionId}`,
  }),
  cardHistory: (merchantId: string, cardKey: string) => `CARDUSE#${merchantId}#${cardKey}`,
  /** A merchant's settings (the retry policy): one item, on the 11-digit MID. */
  merchantSettings: (merchantId: string) => ({ pk: `SETTINGS#${merchantId}`, sk: 'SETTINGS' }),
  /** An event, written with the change it announces; by merchant and time on GSI1 (`merchantEvents`). */
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  /** GSI1 partition of a merchant's events; sort key `<createdAt>#<eventId>` (newest first when read backward). */
  merchantEvents: (merchantId: string) => `EVENTS#${merchantId}`,
  /**
   * A merchant's webhook endpoints and their count share one partition: one consistent Query
   * lists them, and the count's condition keeps the limit under concurrent creates.
   */
  webhookEndpoint: (merchantId: string, endpointId: string) => ({
    pk: `WEBHOOKS#${merchantId}`,
    sk: `ENDPOINT#${endpointId}`,
  }),
  webhookEndpoints: (merchantId: string) => `WEBHOOKS#${merchantId}`,
  webhookEndpointPrefix: 'ENDPOINT#',
  webhookCounter: (merchantId: string) => ({ pk: `WEBHOOKS#${merchantId}`, sk: 'COUNT' }),
  /**
   * A delivery (one event to one endpoint) in its lane: the partition of one endpoint and one
   * object, sorted by the event's sequence, so that the earlier and later deliveries of an object
   * to an endpoint are one consistent Query away (the order rule).
   */
  webhookLane: (endpointId: string, objectId: string) => `WHLANE#${endpointId}#${objectId}`,
  webhookDelivery: (endpointId: string, objectId: string, sequence: number) => ({
    pk: `WHLANE#${endpointId}#${objectId}`,
    sk: `SEQ#${String(sequence).padStart(10, '0')}`,
  }),
  webhookSequenceSort: (sequence: number) => `SEQ#${String(sequence).padStart(10, '0')}`,
  /** GSI1: an endpoint's deliveries by event time (`<createdAt>#<eventId>`). */
  endpointDeliveries: (endpointId: string) => `WHDELIVERIES#${endpointId}`,
  /**
   * GSI2 (sparse): a delivery while pending, sorted by the time its queue message counts as lost
   * (`<checkAt>#<eventId>`), so that the webhook sweep re-enqueues lost work with one Query per shard.
   */
  webhookDueShard: (eventId: string, endpointId: string) =>
    `WHDUE#${shardOf(`${endpointId}#${eventId}`, WEBHOOK_DUE_SHARDS)}`,
  webhookDueShards: () => Array.from({ length: WEBHOOK_DUE_SHARDS }, (_, i) => `WHDUE#${i}`),
  /** The sequences of an object's events the webhook fan-out has seen (the order rule's gap check). */
  eventCursor: (objectId: string) => ({ pk: `WHSEEN#${objectId}`, sk: 'SEEN' }),
  /**
   * A processor notice's mark (docs/architecture.md "Notices"): written with `attribute_not_exists`
   * in the one transaction that applies it, so each notice is applied once.
   */
  notice: (noticeId: string) => ({ pk: `NOTICE#${noticeId}`, sk: 'NOTICE' }),
  /**
   * A notice kept until its record appears (GSI2 `NOTICEHOLD` / `<retryAt>#<noticeId>` while
   * held), and a notice's follow-up work written ahead in its transaction (GSI2 `NOTICEFX` /
   * `<dueAt>#<noticeId>` until done): the backstop job reads both by due time with one Query.
   */
  noticeHold: (noticeId: string) => ({ pk: `NOTICE#${noticeId}`, sk: 'HOLD' }),
  noticeHoldPartition: 'NOTICEHOLD',
  noticeFollowUp: (noticeId: string) => ({ pk: `NOTICE#${noticeId}`, sk: 'FOLLOWUP' }),
  noticeFollowUpPartition: 'NOTICEFX',
  noticeDueSort: (at: string, noticeId: string) => `${at}#${noticeId}`,
  /** A merchant's returned debit, newest last in the partition (the returns list reads it backwards). */
  merchantReturn: (merchantId: string, returnedAt: string, transactionId: string) => ({
    pk: `RETURNS#${merchantId}`,
    sk: `${returnedAt}#${transactionId}`,
  }),
  merchantReturns: (merchantId: string) => `RETURNS#${merchantId}`,
  /** A card dispute's record (store/disputes.ts). */
  dispute: (disputeId: string) => ({ pk: `DISPUTE#${disputeId}`, sk: 'DISPUTE' }),
  /** A merchant's dispute as its list shows it, newest last in the partition (read backwards). */
  merchantDispute: (merchantId: string, openedAt: string, disputeId: string) => ({
    pk: `DISPUTES#${merchantId}`,
    sk: `${openedAt}#${disputeId}`,
  }),
  merchantDisputes: (merchantId: string) => `DISPUTES#${merchantId}`,
  /** The backstop's cursor of a processor's notices (as the processor gave it). */
  noticeCursor: (processor: string) => ({ pk: 'NOTICES', sk: `CURSOR#${processor}` }),
  /** Outbox: one item per e-mail to send, written with the change that causes it. */
  outbox: (outboxId: string) => ({ pk: `OUTBOX#${outboxId}`, sk: 'OUTBOX' }),
  /** An operator's requeue of the item under way (store/outbox.ts requeue): the item to write anew. */
  outboxRequeue: (outboxId: string) => ({ pk: `OUTBOX#${outboxId}`, sk: 'REQUEUE' }),
  /**
   * The test clock's mark (non-production): the time up to which it settled a merchant's approved
   * sales (core/test-clock.ts).
   */
  testClock: (merchantId: string) => ({ pk: `TESTCLOCK#${merchantId}`, sk: 'TESTCLOCK' }),
  /**
   * Day index on GSI1 (store/day-index.ts; reconciliation lists a window by time without a Scan):
   * the service's transactions and refunds. Partition `<KIND>#DAY#yyyy-mm-dd#<shard>`, sort
   * `<ISO time>#<id>`.
   */
  dayIndex: (kind: DayKind, at: string, id: string) => dayIndexEntry(kind, at, id),
  /** GSI1 partition listing every merchant (its 11-digit registry item). */
  merchantList: 'MERCHANTS',
  /**
   * The way back from a processor's account (Stripe: a connected account, `acct_…`) to its
   * merchant: one registry item per account (admin-only, as the merchant's own), listed on GSI1
   * `processorAccounts(processor)` for reconciliation and the account updater.
   */
  processorAccount: (processor: string, account: string) => ({
    pk: `${REGISTRY}${processor}:${account}`,
    sk: 'PROCESSOR_ACCOUNT',
  }),
  processorAccounts: (processor: string) => `PROCESSOR_ACCOUNTS#${processor}`,
  /**
   * A merchant has vaulted at this processor account (written by the adapter before it vaults):
   * the merchant's mapping to the account may no longer change (store/merchants.ts).
   */
  processorVault: (processor: string, merchantId: string, account: string) => ({
    pk: `VAULTED#${processor}#${merchantId}`,
    sk: account,
  }),
  processorVaults: (processor: string, merchantId: string) => `VAULTED#${processor}#${merchantId}`,
  /** GSI1: a merchant's groups ordered by slot. */
  merchantGroups: (merchantId: string) => `MERCHANT#${merchantId}`,
  merchantGroupSort: (slot: string, groupId: string) => `${slot}#${groupId}`,
  /** GSI2 (sparse): present only while a group is pending. */
  dueShard: (groupId: string) => `DUE#${shardOf(groupId, DUE_SHARDS)}`,
  dueShards: () => Array.from({ length: DUE_SHARDS }, (_, i) => `DUE#${i}`),
  dueSort: (slot: string, groupId: string) => `${slot}#${groupId}`,
  /**
   * GSI2 (sparse): a group still being created (written ahead of its payments), ordered by the
   * time the create began, so the sweep finds abandoned creates with one Query.
   */
  creatingPartition: 'CREATING',
  creatingSort: (createdAt: string, groupId: string) => `${createdAt}#${groupId}`,
  /**
   * GSI2 (sparse): a sale or refund while Pending, a sale while its void is reserved; removed when
   * settled. The sort key starts with the time the work began, so the sweeper reads stale work
   * with one Query per shard (docs/architecture.md#sweeper).
   */
  sweepShard: (id: string) => `SWEEP#${shardOf(id, SWEEP_SHARDS)}`,
  sweepShards: () => Array.from({ length: SWEEP_SHARDS }, (_, i) => `SWEEP#${i}`),
  sweepSort: (at: string, kind: string, id: string) => `${at}#${kind}#${id}`,
};
