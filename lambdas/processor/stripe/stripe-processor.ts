/**
 * The Stripe adapter (docs/decisions.md "Stripe"): Stripe Connect direct charges on each
 * merchant's connected account, one PaymentIntent per attempt confirmed off-session, the
 * service's processor key as Stripe's idempotency key and in the PaymentIntent's metadata.
 *
 * One key, one charge, whatever its age: Stripe forgets an idempotency key after 24 hours, and
 * the service may replay a key later (the sweeper, a retried batch). A key first used
 * KEY_MEMORY_MS ago or more is first looked for among the payor's PaymentIntents created since
 * (calls.ts chargeByKey); a younger one is left to Stripe's own replay.
 */
import type Stripe from 'stripe';
import { nextCutoff, type SettlementSchedule } from '#processor/cut-offs';
import {
  ProcessorUnavailableError,
  type AccountUpdate,
  type NoticeListing,
  type NoticePage,
  type PaymentProcessor,
  type ProcessorActivity,
  type ReversalRequest,
  type ReversalResult,
  type SaleRequest,
  type SaleResult,
  type TokenizeRequest,
  type UnansweredRequest,
  type Vaulted,
  type WebhookReading,
  type WebhookRequest,
} from '#processor/processor';
import { BadRequestError } from '#shared/errors';
import type { ConnectedAccounts } from './accounts';
import { accountUpdatesOf, activityOf } from './activity';
import { listStripeNotices } from './notice-listing';
import { readStripeWebhook } from './webhook';
import { declined, declinedCharge, refused, reversalAnswer, saleAnswer } from './answers';
import {
  attempt,
  chargeByKey,
  KEY_FIELD,
  reversalKeyOf,
  MERCHANT_FIELD,
  refundByKey,
  TIMEOUT_REVERSAL_FIELD,
} from './calls';
import { StripeUnavailableError } from './errors';
import { STRIPE_TRAITS } from './traits';
import { vault } from './vault';
import { parseVaultToken } from './vault-token';
import { clock } from '#shared/clock';

/**
 * Stripe keeps an idempotency key for at least 24 hours: a key older than 23 hours (an hour of
 * margin for clocks and for Stripe's pruning) is looked up before it is used again.
 */
const KEY_MEMORY_MS = 23 * 3600_000;
/** How far before the key's first use the look-up starts: clocks of two systems differ. */
const LOOKUP_MARGIN_SECONDS = 3600;
/** Stripe's smallest USD charge: the amount of the PaymentIntent that takes an unanswered key. */
const SMALLEST_CHARGE_CENTS = 50;

interface StripeProcessorOptions {
  stripe: Stripe;
  accounts: ConnectedAccounts;
  /** The service's settlement cut-offs (void before, refund after), as for every processor. */
  schedule: SettlementSchedule;
  /** The service's clock, from which key ages are read. @default clock.nowMs */
  now?: () => number;
  /**
   * Whether the test clock may settle sales now (a test-mode key only): settling is the service's
   * own cut-off (both a void and a refund are Stripe refunds), so nothing is asked of Stripe.
   */
  testClock?: boolean;
  /** Whether the key is a live-mode one: webhooks of the other mode are refused. @default false */
  live?: boolean;
}

export class StripeProcessor implements PaymentProcessor {
  readonly voidsBankDebits = STRIPE_TRAITS.voidsBankDebits;
  readonly voidIsRefund = STRIPE_TRAITS.voidIsRefund;
  private readonly stripe: Stripe;
  private readonly accounts: ConnectedAccounts;
  private readonly schedule: SettlementSchedule;
  private readonly now: () => number;
  private readonly live: boolean;

  constructor(options: StripeProcessorOptions) {
    this.stripe = options.stripe;
    this.accounts = options.accounts;
    this.schedule = options.schedule;
    // Read at each use: the service's clock, which tests move.
    this.now = options.now ?? (() => clock.nowMs());
    this.live = options.live ?? false;
    if (options.testClock === true)
      this.settleNow = async () => ({ settledAt: new Date(this.now()).toISOString() });
  }

  /** The test clock (test mode only; docs/decisions.md "The service's cut-offs; the test clock in test mode"). */
  readonly settleNow?: PaymentProcessor['settleNow'];

  /** The merchant's connected account; without one nothing can be charged (an operator's fix). */
  private async accountOf(merchantId: string): Promise<string> {
    const account = await this.accounts.accountOf(merchantId);
    if (account === undefined)
      throw new ProcessorUnavailableError(`merchant ${merchantId} has no Stripe account`);
    return account;
  }

  async tokenize(request: TokenizeRequest): Promise<Vaulted> {
    const account = await this.accounts.accountOf(request.merchantId);
    if (account === undefined) throw new BadRequestError('the merchant is not set up with the processor yet');
    // The merchant's account is fixed from here (a remap is refused once it has vaulted there),
    // and a remap made meanwhile is seen after: the method is not kept for an account it left.
    await this.accounts.vaulting?.(request.merchantId, account);
    const vaulted = await vault(this.stripe, account, request);
    if (this.accounts.stillMapped && !(await this.accounts.stillMapped(request.merchantId, account)))
      throw new ProcessorUnavailableError(
        `merchant ${request.merchantId}'s Stripe account changed while vaulting; nothing was saved`,
      );
    return vaulted;
  }

  /** Whether Stripe may have forgotten the key: first used at least KEY_MEMORY_MS ago. */
  private forgotten(keyFirstUsedAt: string): boolean {
    const first = Date.parse(keyFirstUsedAt);
    return !Number.isFinite(first) || this.now() - first >= KEY_MEMORY_MS;
  }

  private sinceOf(keyFirstUsedAt: string): number {
    const first = Date.parse(keyFirstUsedAt);
    return Math.floor((Number.isFinite(first) ? first : 0) / 1000) - LOOKUP_MARGIN_SECONDS;
  }

  async sale(request: SaleRequest): Promise<SaleResult> {
    const account = await this.accountOf(request.merchantId);
    const key = request.idempotencyKey;
    const token = parseVaultToken(request.token);
    const nowIso = new Date(this.now()).toISOString();
    if (!token) {
      // A method vaulted by another processor (the sandbox, before the stage moved to Stripe).
      return declined({ code: 'token_of_another_processor' }, '', nowIso);
    }
    // The payor's PaymentIntents first (few); the account's when a charge under the key has no
    // customer (the timeout reversal's, made without the method's token).
    const since = this.sinceOf(request.keyFirstUsedAt);
    const byKey = (customer?: string) =>
      chargeByKey(this.stripe, { account, ...(customer !== undefined && { customer }) }, key, since);
    if (this.forgotten(request.keyFirstUsedAt)) {
      const first = (await byKey(token.customer)) ?? (await byKey());
      if (first) return saleAnswer(first, key);
      // The caller gave up while the key was looked up: its timeout reversal looks the key up too
      // (a key this old is not taken by a placeholder), so a charge made now would stay made.
      if (request.signal?.aborted)
        throw new StripeUnavailableError('Stripe sale: given up on while its key was looked up; not charged');
    }
    const params: Stripe.PaymentIntentCreateParams = {
      amount: request.amountCents,
      currency: 'usd',
      customer: token.customer,
      payment_method: token.paymentMethod,
      confirm: true,
      ...(token.mandate !== undefined
        ? { allowed_payment_method_types: ['us_bank_account'], mandate: token.mandate }
        : { allowed_payment_method_types: ['card'], off_session: true }),
      metadata: { [KEY_FIELD]: key, [MERCHANT_FIELD]: request.merchantId },
      expand: ['latest_charge'],
    };
    const made = await this.tryKeyed(
      () => this.stripe.paymentIntents.create(params, { stripeAccount: account, idempotencyKey: key }),
      'sale',
    );
    if ('ok' in made) return saleAnswer(made.ok, key);
    const failed = made.failed;
    if (failed.kind === 'declined') return declinedCharge(failed.fields, failed.paymentIntent, nowIso);
    if (failed.kind === 'refused') return declined({ code: failed.code }, '', nowIso);
    // The key holds another request's answer (the timeout reversal's, another amount), or a
    // failure Stripe will only replay: what was made under it, if anything, is the answer.
    const first = await byKey();
    if (first) return saleAnswer(first, key);
    if (failed.kind === 'replayed-failure') return declined({ code: 'processing_error' }, '', nowIso);
    throw new StripeUnavailableError(
      'Stripe sale: the key was used for another request and no charge has it',
    );
  }

  /**
   * A keyed call; a 5xx that Stripe marks as not worth retrying (replayed as is under the key)
   * becomes `replayed-failure`, for the caller to look for what the key made instead.
   */
  private async tryKeyed<T>(call: () => Promise<T>, what: string) {
    try {
      return await attempt(what, call);
    } catch (error) {
      if (error instanceof StripeUnavailableError && !error.retryable)
        return { failed: { kind: 'replayed-failure' as const } };
      throw error;
    }
  }

  async reverseUnanswered(request: UnansweredRequest): Promise<void> {
    const account = await this.accountOf(request.merchantId);
    const key = request.idempotencyKey;
    const options = { stripeAccount: account, idempotencyKey: key };
    const token = request.token !== undefined ? parseVaultToken(request.token) : undefined;
    if (!this.forgotten(request.keyFirstUsedAt)) {
      // Take the key first: a PaymentIntent never confirmed, under the same key with other
      // parameters. Made, the sale never reached Stripe and now never will (Stripe refuses its
      // late arrival); refused, the key already made something, looked for below.
      const taken = await this.tryKeyed(
        () =>
          this.stripe.paymentIntents.create(
            {
              amount: SMALLEST_CHARGE_CENTS,
              currency: 'usd',
              ...(token && { customer: token.customer }),
              allowed_payment_method_types: ['card'],
              metadata: {
                [KEY_FIELD]: key,
                [MERCHANT_FIELD]: request.merchantId,
                [TIMEOUT_REVERSAL_FIELD]: 'true',
              },
            },
            options,
          ),
        'timeout reversal',
      );
      if ('ok' in taken) return this.cancel(account, taken.ok);
    }
    const since = this.sinceOf(request.keyFirstUsedAt);
    const charge =
      (token && (await chargeByKey(this.stripe, { account, customer: token.customer }, key, since))) ??
      (await chargeByKey(this.stripe, { account }, key, since));
    if (!charge) return;
    if (charge.metadata?.[TIMEOUT_REVERSAL_FIELD] !== undefined) return this.cancel(account, charge);
    if (charge.status === 'succeeded' || charge.status === 'processing') {
      const refund = await this.tryKeyed(
        () =>
          this.stripe.refunds.create(
            {
              payment_intent: charge.id,
              metadata: { [KEY_FIELD]: reversalKeyOf(key), [MERCHANT_FIELD]: request.merchantId },
            },
            { stripeAccount: account, idempotencyKey: reversalKeyOf(key) },
          ),
        'timeout reversal',
      );
      if ('ok' in refund) return;
      if (refund.failed.kind === 'refused' && refund.failed.code === 'charge_already_refunded') return;
      throw new StripeUnavailableError(
        `Stripe timeout reversal: the refund was not made (${refund.failed.kind})`,
      );
    }
    if (charge.status === 'canceled' || charge.status === 'requires_payment_method') return;
    await this.cancel(account, charge);
  }

  /** Cancels a PaymentIntent that moved no money (canceling one already canceled is done). */
  private async cancel(account: string, intent: Stripe.PaymentIntent): Promise<void> {
    if (intent.status === 'canceled') return;
    const outcome = await attempt('cancel', () =>
      this.stripe.paymentIntents.cancel(intent.id, {}, { stripeAccount: account }),
    );
    if ('failed' in outcome && outcome.failed.kind !== 'refused')
      throw new StripeUnavailableError(`Stripe cancel: ${outcome.failed.kind}`);
  }

  /** A void or a refund: both are Stripe refunds under the service's key; one key, one refund. */
  private async reverse(kind: 'void' | 'refund', request: ReversalRequest): Promise<ReversalResult> {
    const account = await this.accountOf(request.merchantId);
    const nowIso = new Date(this.now()).toISOString();
    const intent = request.processorTransactionId;
    if (!/^pi_[A-Za-z0-9_]+$/.test(intent)) return refused('the sale was not made at Stripe', '', nowIso);
    const key = request.idempotencyKey;
    // The PaymentIntent's refunds are few: looked at first, so that a key of any age makes one.
    const earlier = await refundByKey(this.stripe, account, intent, key);
    if (earlier) return reversalAnswer(earlier, kind);
    const made = await this.tryKeyed(
      () =>
        this.stripe.refunds.create(
          {
            payment_intent: intent,
            amount: request.amountCents,
            metadata: { [KEY_FIELD]: key, [MERCHANT_FIELD]: request.merchantId },
          },
          { stripeAccount: account, idempotencyKey: key },
        ),
      kind,
    );
    if ('ok' in made) return reversalAnswer(made.ok, kind);
    const failed = made.failed;
    if (failed.kind === 'refused') return refused(`Stripe ${failed.code}`, '', nowIso);
    if (failed.kind === 'declined') return refused('Stripe declined the refund', '', nowIso);
    const again = await refundByKey(this.stripe, account, intent, key);
    if (again) return reversalAnswer(again, kind);
    if (failed.kind === 'replayed-failure') return refused('Stripe failed to make it', '', nowIso);
    throw new StripeUnavailableError(`Stripe ${kind}: the key was used for another request`);
  }

  void(request: ReversalRequest): Promise<ReversalResult> {
    return this.reverse('void', request);
  }

  refund(request: ReversalRequest): Promise<ReversalResult> {
    return this.reverse('refund', request);
  }

  settlementTime(processedAt: string): string {
    return nextCutoff(processedAt, this.schedule);
  }

  async listActivity(
    since: string,
    until: string = new Date(this.now()).toISOString(),
  ): Promise<ProcessorActivity[]> {
    return activityOf(
      this.stripe,
      await this.accounts.all(),
      since,
      until,
      new Date(this.now()).toISOString(),
    );
  }

  /** A webhook Stripe sent, verified and read as notices (webhook.ts). */
  async readWebhook(request: WebhookRequest): Promise<WebhookReading> {
    return readStripeWebhook(
      {
        stripe: this.stripe,
        live: this.live,
        merchantOf: (account) => this.accounts.merchantOf(account),
        now: this.now,
      },
      request,
    );
  }

  /** A page of the backstop's pass over the connected accounts' events, as notices (notice-listing.ts). */
  async listNotices(request: NoticeListing): Promise<NoticePage> {
    return listStripeNotices(this.stripe, await this.accounts.all(), {
      ...request,
      now: request.now ?? new Date(this.now()).toISOString(),
    });
  }

  async accountUpdates(
    since: string,
    until: string = new Date(this.now()).toISOString(),
  ): Promise<AccountUpdate[]> {
    return accountUpdatesOf(this.stripe, await this.accounts.all(), since, until);
  }
}
