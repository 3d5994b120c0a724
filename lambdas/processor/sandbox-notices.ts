/**
 * The sandbox's notices (DESIGN section 6; docs/product.md "Sandbox processor"): what a bank says
 * of a debit after it was accepted. An approved debit's notices are planned with its ledger entry
 * (one transaction, so an approved debit never lacks them), each due at a settlement cut-off
 * counted from the debit's own settlement (a cut-off stands for a banking day):
 *
 * | account number | notices                                                     |
 * | -------------- | ----------------------------------------------------------- |
 * | `000222222227` | returned `R01` (insufficient funds) at the 2nd cut-off      |
 * | `000111111113` | returned `R02` (account closed) at the 1st                  |
 * | `000333333335` | cleared at the 2nd, returned `R10` (unauthorized) at the 3rd |
 * | `000888888883` | a NOC `C01` at the 1st (account number `000888888884`), cleared at the 2nd |
 * | any other      | cleared at the 2nd                                          |
 *
 * and of a card charge, its dispute (the card's token profile, sandbox-profiles.ts):
 *
 * | card number        | notices                                                              |
 * | ------------------ | -------------------------------------------------------------------- |
 * | `4000000000000259` | disputed `fraudulent` (`needs_response`) at the 1st cut-off, lost at the 3rd |
 * | `4000000000002685` | disputed `product_not_received` (`needs_response`) at the 1st, won at the 3rd |
 *
 * A planned notice is one item per merchant and due time (`SANDBOX#NOTICES#<merchantId>` /
 * `DUE#<dueAt>#<noticeId>`), on a day index of its own by due time, from which `listNotices`
 * answers as a processor's events list does. The test clock (`noticesNow`) moves the merchant's
 * earliest pending notices to now: each call is one banking day sooner. A void, or a timeout
 * reversal that takes an approved sale back, marks its charge
 * (`SANDBOX#VOIDED#<processorTransactionId>`, with its ledger entry and its time): the charge's
 * notices due after it are never listed, brought forward (the test clock deletes those it meets)
 * or reported as returns, as a voided debit never reaches the bank.
 */
import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { maskNumber } from '#domain/cards';
import { queryDays } from '#store/day-index';
import type { NoticePage, ProcessorActivity, ProcessorNotice } from './processor';
import { NOTICE_DAYS, sandboxKeys } from './sandbox-keys';

/**
 * A notice the sandbox will send: its kind and code (a dispute's: its status and reason), and at
 * which cut-off after settlement.
 */
interface PlannedNotice {
  kind: 'cleared' | 'returned' | 'noc' | 'dispute_opened' | 'dispute_closed';
  code?: string;
  status?: 'needs_response' | 'won' | 'lost';
  reason?: string;
  cutoffs: number;
}

/** The corrected account number of the NOC test account (only its masked form is sent). */
const NOC_NEW_ACCOUNT = '000888888884';

/** The test accounts' token profiles, and what each plans (`bank`: an ordinary account). */
export const SANDBOX_NOTICE_ACCOUNTS: Readonly<Record<string, string>> = {
  '000222222227': 'nR01',
  '000111111113': 'nR02',
  '000333333335': 'nR10',
  '000888888883': 'nC01',
};

const PLANS: Readonly<Record<string, readonly PlannedNotice[]>> = {
  bank: [{ kind: 'cleared', cutoffs: 2 }],
  nR01: [{ kind: 'returned', code: 'R01', cutoffs: 2 }],
  nR02: [{ kind: 'returned', code: 'R02', cutoffs: 1 }],
  nR10: [
    { kind: 'cleared', cutoffs: 2 },
    { kind: 'returned', code: 'R10', cutoffs: 3 },
  ],
  nC01: [
    { kind: 'noc', code: 'C01', cutoffs: 1 },
    { kind: 'cleared', cutoffs: 2 },
  ],
  dFRD: [
    { kind: 'dispute_opened', status: 'needs_response', reason: 'fraudulent', cutoffs: 1 },
    { kind: 'dispute_closed', status: 'lost', reason: 'fraudulent', cutoffs: 3 },
  ],
  dPNR: [
    { kind: 'dispute_opened', status: 'needs_response', reason: 'product_not_received', cutoffs: 1 },
    { kind: 'dispute_closed', status: 'won', reason: 'product_not_received', cutoffs: 3 },
  ],
};

/** The dispute test cards' token profiles (they approve as any card does). */
export const SANDBOX_DISPUTE_CARDS: Readonly<Record<string, string>> = {
  '4000000000000259': 'dFRD',
  '4000000000002685': 'dPNR',
};

/** How long a merchant has to send a dispute's evidence, in the sandbox. */
const EVIDENCE_DAYS = 7;

/** How far back a listing from a cursor reads again: a notice written late is still listed. */
const RELIST_MS = 5 * 60_000;
/** Where a first listing (no cursor) starts: the sandbox keeps a week of notices. */
const FIRST_LISTING_MS = 7 * 86_400_000;
/** At most this many of a merchant's pending notices are moved by one `noticesNow`. */
const BRING_FORWARD_LIMIT = 100;
/** At most this many pages of them are read by one `noticesNow` (past voided charges' notices). */
const BRING_FORWARD_PAGES = 5;

interface PlannedCharge {
  merchantId: string;
  idempotencyKey: string;
  /** The vault token the debit went to (a NOC corrects its account). */
  token: string;
  processorTransactionId: string;
  /** The debit's settlement cut-off. */
  settlesAt: string;
  /** What was charged (a return gives it back: the activity report shows it; a dispute disputes all of it). */
  amountCents: number;
}

const noticeIdOf = (charge: PlannedCharge, n: number) =>
  `sbxn_${createHash('sha256').update(`${charge.processorTransactionId}#${n}`).digest('base64url').slice(0, 24)}`;

/** The notice as it is delivered when it falls due at `at`. */
function noticeAt(item: Record<string, unknown>, at: string): ProcessorNotice {
  const base = {
    noticeId: item.noticeId as string,
    merchantId: item.merchantId as string,
    objectId: item.processorTransactionId as string,
    sequence: item.sequence as number,
    occurredAt: at,
    charge: {
      processorTransactionId: item.processorTransactionId as string,
      idempotencyKey: item.idempotencyKey as string,
    },
  };
  if (item.kind === 'cleared') return { ...base, kind: 'cleared', clearedAt: at };
  if (item.kind === 'dispute_opened' || item.kind === 'dispute_closed') {
    const status = item.status as 'needs_response' | 'won' | 'lost';
    return {
      ...base,
      objectId: item.disputeId as string,
      kind: item.kind,
      disputeId: item.disputeId as string,
      status,
      reason: item.reason as string,
      amountCents: item.amountCents as number,
      ...(status === 'needs_response' && {
        evidenceDueBy: new Date(Date.parse(at) + EVIDENCE_DAYS * 86_400_000).toISOString(),
      }),
    };
  }
  if (item.kind === 'noc')
    return {
      ...base,
      kind: 'noc',
      token: item.token as string,
      code: item.code as string,
      corrected: { maskedAccountNumber: maskNumber(NOC_NEW_ACCOUNT) },
    };
  return { ...base, kind: 'returned', code: item.code as string, returnedAt: at };
}

/** A planned notice's item, due at `dueAt`. */
function noticeItem(fields: Record<string, unknown>, dueAt: string) {
  const merchantId = fields.merchantId as string;
  const noticeId = fields.noticeId as string;
  return {
    ...fields,
    ...sandboxKeys.pendingNotice(merchantId, dueAt, noticeId),
    ...sandboxKeys.noticeDay(noticeId, dueAt),
    entity: 'sandbox-notice',
    dueAt,
  };
}

/**
 * The items of the notices a charge approved under a bank profile or a dispute card's plans (none
 * for another card or a declined charge), for the ledger entry's transaction.
 */
export function plannedNoticeItems(profile: string, charge: PlannedCharge, periodSeconds: number) {
  const plan = PLANS[profile] ?? [];
  return plan.map((notice, i) =>
    noticeItem(
      {
        noticeId: noticeIdOf(charge, i + 1),
        merchantId: charge.merchantId,
        processorTransactionId: charge.processorTransactionId,
        idempotencyKey: charge.idempotencyKey,
        amountCents: charge.amountCents,
        ...(notice.kind === 'noc' && { token: charge.token }),
        kind: notice.kind,
        ...(notice.code !== undefined && { code: notice.code }),
        ...(notice.status !== undefined && {
          disputeId: `sbxd_${charge.processorTransactionId.slice(4)}`,
          status: notice.status,
          reason: notice.reason,
          amountCents: charge.amountCents,
        }),
        sequence: i + 1,
      },
      new Date(Date.parse(charge.settlesAt) + notice.cutoffs * periodSeconds * 1000).toISOString(),
    ),
  );
}

const cursorOf = {
  /** A listing that reached its end: the next one reads from a little before it. */
  complete: (until: string) => `at:${until}`,
  /** A listing cut at its limit: the next one reads after its last item. */
  after: (sortKey: string) => `sk:${sortKey}`,
};

/**
 * The item that marks a charge voided at `voidedAt`, written with the void's ledger entry (or a
 * timeout reversal's, which takes an approved sale back as a void does).
 */
export const voidedMark = (processorTransactionId: string, voidedAt: string) => ({
  ...sandboxKeys.voided(processorTransactionId),
  entity: 'sandbox-voided',
  processorTransactionId,
  voidedAt,
});

/** How many void marks are read at once. */
const MARK_READS = 25;

/**
 * The planned notices that a void took back (due after it) apart from the others. A notice due
 * before its charge's void was sent before it and stays as sent.
 */
async function splitVoided(
  db: DynamoDBDocumentClient,
  tableName: string,
  items: Record<string, unknown>[],
): Promise<{ kept: Record<string, unknown>[]; voided: Record<string, unknown>[] }> {
  const charges = [...new Set(items.map((item) => item.processorTransactionId as string))];
  const voidedAt = new Map<string, string>();
  for (let i = 0; i < charges.length; i += MARK_READS) {
    const marks = await Promise.all(
      charges.slice(i, i + MARK_READS).map((charge) =>
        db.send(
          new GetCommand({
            TableName: tableName,
            Key: sandboxKeys.voided(charge),
            ProjectionExpression: 'processorTransactionId, voidedAt',
            ConsistentRead: true,
          }),
        ),
      ),
    );
    for (const { Item } of marks)
      if (Item) voidedAt.set(Item.processorTransactionId as string, Item.voidedAt as string);
  }
  const takenBack = (item: Record<string, unknown>) => {
    const at = voidedAt.get(item.processorTransactionId as string);
    return at !== undefined && String(item.dueAt) > at;
  };
  return { kept: items.filter((item) => !takenBack(item)), voided: items.filter(takenBack) };
}

/** The notices due from `cursor` to `now`, oldest first, at most `limit` (the backstop's listing). */
export async function listSandboxNotices(
  db: DynamoDBDocumentClient,
  tableName: string,
  request: { cursor?: string; limit: number; now: string },
): Promise<NoticePage> {
  const { cursor, limit, now } = request;
  const from =
    cursor?.startsWith('sk:') === true
      ? cursor.slice(3)
      : new Date(
          cursor?.startsWith('at:') === true
            ? Date.parse(cursor.slice(3)) - RELIST_MS
            : Date.parse(now) - FIRST_LISTING_MS,
        ).toISOString();
  const since = from.slice(0, 24);
  // Sort keys are `<dueAt>#<noticeId>`: up to `now`'s millisecond, every id included.
  const items = await queryDays(db, tableName, NOTICE_DAYS, { since, until: now, from, to: `${now}#~` });
  // A cursor after an item names that item: it was listed before.
  const rest = items.filter((item) => String(item.gsi1sk) !== from);
  const page = rest.slice(0, limit);
  const more = rest.length > limit;
  const { kept: sent } = await splitVoided(db, tableName, page);
  return {
    notices: sent.map((item) => noticeAt(item, item.dueAt as string)),
    cursor: more ? cursorOf.after(String(page.at(-1)!.gsi1sk)) : cursorOf.complete(now),
    more,
  };
}

/**
 * The test clock: the merchant's pending notices due at the earliest cut-off still ahead are due
 * now (each moved in one write: the old item out, the new one in). How many moved.
 */
export async function bringNoticesForward(
  db: DynamoDBDocumentClient,
  tableName: string,
  merchantId: string,
  now: string,
): Promise<number> {
  let pending: Record<string, unknown>[] = [];
  for (let page = 0; page < BRING_FORWARD_PAGES && pending.length === 0; page++) {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk > :now',
        ExpressionAttributeValues: {
          ':pk': sandboxKeys.pendingNotices(merchantId),
          ':now': `DUE#${now}`,
        },
        ConsistentRead: true,
        Limit: BRING_FORWARD_LIMIT,
      }),
    );
    // A notice another call brought forward is left alone (`broughtForwardAt`): concurrent calls
    // take their times in any order, and one whose time is before another's sees what that one
    // moved as still ahead.
    const ahead = Items.filter((item) => item.broughtForwardAt === undefined);
    const { kept, voided } = await splitVoided(db, tableName, ahead);
    pending = kept;
    // A voided charge's notices are never sent: those met here go (and the next page is read), so
    // that they never stand before the next cut-off's notices.
    await Promise.all(
      voided.map(({ pk, sk }) => db.send(new DeleteCommand({ TableName: tableName, Key: { pk, sk } }))),
    );
    if (voided.length === 0) break;
  }
  const first = pending[0]?.dueAt as string | undefined;
  const due = pending.filter((item) => item.dueAt === first);
  let moved = 0;
  for (const item of due) {
    const { pk, sk, gsi1pk: _day, gsi1sk: _at, dueAt: _due, ...fields } = item;
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: { TableName: tableName, Key: { pk, sk }, ConditionExpression: 'attribute_exists(pk)' },
            },
            { Put: { TableName: tableName, Item: { ...noticeItem(fields, now), broughtForwardAt: now } } },
          ],
        }),
      );
      moved++;
    } catch (error) {
      // Another call moved it first.
      if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
    }
  }
  return moved;
}

/**
 * The returns due from `since` (inclusive) to `until` (exclusive), as the activity report shows
 * them (listActivity): the debit's key and id, its amount, the return code, when it was returned.
 */
export async function sandboxReturns(
  db: DynamoDBDocumentClient,
  tableName: string,
  since: string,
  until: string,
): Promise<ProcessorActivity[]> {
  const items = await queryDays(db, tableName, NOTICE_DAYS, { since, until });
  const returned = items.filter((item) => item.kind === 'returned' && String(item.dueAt) < until);
  return (await splitVoided(db, tableName, returned)).kept.map((item) => ({
    kind: 'return' as const,
    idempotencyKey: item.idempotencyKey as string,
    merchantId: item.merchantId as string,
    processorTransactionId: item.processorTransactionId as string,
    approved: true,
    amountCents: Number(item.amountCents ?? 0),
    responseCode: item.code as string,
    at: item.dueAt as string,
  }));
}
