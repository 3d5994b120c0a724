/**
 * What Stripe recorded, as reconciliation and the account updater read it: the service's
 * PaymentIntents and Refunds of every connected account created in a window (listed, oldest
 * first), the returns of bank debits in it (from Stripe's events, read as the notices read them),
 * and the card updates Stripe made (`payment_method.automatically_updated` events).
 *
 * A bank debit that Stripe submitted (`processing`) and that failed later was returned: it is
 * reported as the sandbox reports one, the approved sale when it was made and a `return` line
 * with its Nacha code when it failed. A debit that failed when it was made (never `processing`)
 * is a declined sale.
 */
import type Stripe from 'stripe';
import { parseProcessorKey } from '#domain/processor-keys';
import type { AccountUpdate, ProcessorActivity } from '#processor/processor';
import { saleAnswer } from './answers';
import {
  countOf,
  isoOf,
  isReversalKey,
  KEY_FIELD,
  must,
  reversalKeyOf,
  TIMEOUT_REVERSAL_FIELD,
} from './calls';
import { accountUpdateOf, debitReturnOf, intentReader, isBankDebit } from './notices';

type Accounts = readonly { merchantId: string; account: string }[];

/** Unix seconds bounds that hold the ISO window (Stripe filters by whole seconds). */
const secondsOf = (since: string, until: string) => ({
  gte: Math.floor(Date.parse(since) / 1000),
  lt: Math.ceil(Date.parse(until) / 1000) + 1,
});

async function listed<T>(what: string, list: () => AsyncIterable<T>): Promise<T[]> {
  return must(what, async () => {
    const items: T[] = [];
    for await (const item of list()) items.push(item);
    return items;
  });
}

/**
 * The events that tell a bank debit's fate: submitted (`processing`), failed, disputed. Listed
 * from this long before the window: a debit that fails when it is made fails within the call
 * that made it, so one made earlier and failing in the window had been submitted.
 */
const DEBIT_EVENT_TYPES = [
  'payment_intent.processing',
  'payment_intent.payment_failed',
  'charge.dispute.created',
] as const;
const SUBMITTED_BEFORE_SECONDS = 300;

/** A sale as the activity report shows it; one Stripe cannot read shows as not approved. */
function saleLine(
  intent: Stripe.PaymentIntent,
  key: string,
  merchantId: string,
  reversed: boolean,
  submitted: (intent: Stripe.PaymentIntent) => boolean,
): ProcessorActivity {
  let answer: { approved: boolean; approvedCents: number; responseCode: string };
  try {
    answer = saleAnswer(intent, key);
    // A bank debit submitted and failed since was approved, then returned (its own line).
    if (!answer.approved && intent.status === 'requires_payment_method' && submitted(intent))
      answer = {
        approved: true,
        approvedCents: countOf(intent.amount, 'amount', 'sale'),
        responseCode: '00',
      };
  } catch {
    answer = { approved: false, approvedCents: 0, responseCode: 'PD' };
  }
  // A sale reversed for want of an answer, like a declined one, moved no money.
  const approved = answer.approved && !reversed;
  return {
    kind: 'sale',
    idempotencyKey: key,
    merchantId,
    processorTransactionId: intent.id,
    approved,
    amountCents: approved ? answer.approvedCents : 0,
    responseCode: reversed ? '96' : answer.responseCode,
    at: isoOf(intent.created),
  };
}

export async function activityOf(
  stripe: Stripe,
  accounts: Accounts,
  since: string,
  until: string,
  now: string,
): Promise<ProcessorActivity[]> {
  const lines: ProcessorActivity[] = [];
  const inWindow = (at: string) => at >= since && at < until;
  for (const { merchantId, account } of accounts) {
    const options = { stripeAccount: account };
    const intents = await listed('activity', () =>
      stripe.paymentIntents.list(
        { created: secondsOf(since, until), limit: 100, expand: ['data.latest_charge'] },
        options,
      ),
    );
    // Refunds up to now: a timeout reversal of a sale in the window may come after the window.
    const refunds = await listed('activity', () =>
      stripe.refunds.list({ created: secondsOf(since, now), limit: 100 }, options),
    );
    const reversedKeys = new Set(
      refunds
        .map((r) => r.metadata?.[KEY_FIELD])
        .filter((k): k is string => k !== undefined && isReversalKey(k)),
    );
    // Bank debits' events up to now: a sale in the window may be returned after it.
    const listedFrom = Date.parse(since) - SUBMITTED_BEFORE_SECONDS * 1000;
    const events = await listed('activity', () =>
      stripe.events.list(
        {
          types: [...DEBIT_EVENT_TYPES],
          created: secondsOf(new Date(listedFrom).toISOString(), now),
          limit: 100,
        },
        options,
      ),
    );
    const processing = new Set(
      events
        .filter((e) => e.type === 'payment_intent.processing')
        .map((e) => (e.data.object as Stripe.PaymentIntent).id),
    );
    const submitted = (intent: Stripe.PaymentIntent) =>
      isBankDebit(intent) && (processing.has(intent.id) || intent.created * 1000 < listedFrom);
    for (const intent of intents) {
      const key = intent.metadata?.[KEY_FIELD];
      const at = isoOf(intent.created);
      if (key === undefined || !inWindow(at)) continue;
      const placeholder = intent.metadata?.[TIMEOUT_REVERSAL_FIELD] !== undefined;
      lines.push(
        saleLine(intent, key, merchantId, placeholder || reversedKeys.has(reversalKeyOf(key)), submitted),
      );
    }
    const readIntent = intentReader(stripe);
    for (const event of events) {
      const at = isoOf(event.created);
      if (!inWindow(at)) continue;
      const returned = await debitReturnOf(event, account, readIntent);
      // A debit that failed without being submitted was declined: its sale line says so.
      if (!returned || (event.type === 'payment_intent.payment_failed' && !submitted(returned.intent)))
        continue;
      lines.push({
        kind: 'return',
        idempotencyKey: returned.charge.idempotencyKey,
        merchantId,
        processorTransactionId: returned.intent.id,
        approved: true,
        amountCents: returned.intent.amount,
        responseCode: returned.code,
        at,
      });
    }
    for (const refund of refunds) {
      const key = refund.metadata?.[KEY_FIELD];
      const at = isoOf(refund.created);
      if (key === undefined || isReversalKey(key) || !inWindow(at)) continue;
      const approved = ['succeeded', 'pending', 'requires_action'].includes(refund.status ?? '');
      lines.push({
        kind: parseProcessorKey(key)?.kind === 'void' ? 'void' : 'refund',
        idempotencyKey: key,
        merchantId,
        processorTransactionId: refund.id,
        ...(typeof refund.payment_intent === 'string' && {
          originalProcessorTransactionId: refund.payment_intent,
        }),
        approved,
        amountCents: approved ? refund.amount : 0,
        responseCode: approved ? '00' : '05',
        at,
      });
    }
  }
  return lines.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

export async function accountUpdatesOf(
  stripe: Stripe,
  accounts: Accounts,
  since: string,
  until: string,
): Promise<AccountUpdate[]> {
  const updates: AccountUpdate[] = [];
  for (const { account } of accounts) {
    const events = await listed('account updates', () =>
      stripe.events.list(
        { type: 'payment_method.automatically_updated', created: secondsOf(since, until), limit: 100 },
        { stripeAccount: account },
      ),
    );
    for (const event of events) {
      const update = accountUpdateOf(event);
      if (update && update.at >= since && update.at < until) updates.push(update);
    }
  }
  return updates.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.updateId < b.updateId ? -1 : 1));
}
