/**
 * The stand-in's memory: its connected accounts and their objects, on a clock it is given (the
 * service's, in tests), and the events its objects raise. Nothing of it survives a restart.
 */
import type Stripe from 'stripe';
import { StandInError } from './errors';
import { eventObject, newStripeId } from './objects';
import type { BankOutcome, CardOutcome } from './test-numbers';

/** A PaymentMethod with what the stand-in read from its number (never the number). */
export interface StoredMethod {
  object: Stripe.PaymentMethod;
  card?: CardOutcome;
  bank?: BankOutcome;
}

/** A bank debit waiting for its outcome (ACH: it clears or fails days later). */
export interface PendingDebit {
  intent: string;
  dueAt: number;
  outcome: BankOutcome;
}

/**
 * A refund whose later status is known when it is made (a test card's): it turns `to` at `dueAt`
 * (Stripe's test cards: some time later), with its events.
 */
export interface PendingRefundChange {
  refund: string;
  dueAt: number;
  to: 'succeeded' | 'failed';
}

export interface AccountState {
  id: string;
  customers: Map<string, Stripe.Customer>;
  methods: Map<string, StoredMethod>;
  setupIntents: Map<string, Stripe.SetupIntent>;
  mandates: Map<string, Stripe.Mandate>;
  intents: Map<string, Stripe.PaymentIntent>;
  charges: Map<string, Stripe.Charge>;
  refunds: Map<string, Stripe.Refund>;
  disputes: Map<string, Stripe.Dispute>;
  events: Stripe.Event[];
  debits: PendingDebit[];
  refundChanges: PendingRefundChange[];
}

export interface StateOptions {
  /** Milliseconds since the epoch: the service's clock in tests. @default Date.now */
  now?: () => number;
  /** How long a bank debit stays `processing` before it clears or fails. @default 2 days */
  debitSettlesAfterSeconds?: number;
  /** How long a refund of a test card whose refund changes later keeps its first status. @default 1 day */
  refundChangesAfterSeconds?: number;
}

export class StandInState {
  private readonly accounts = new Map<string, AccountState>();
  private readonly listeners: ((event: Stripe.Event) => void)[] = [];
  readonly clock: () => number;
  readonly debitSettlesAfterSeconds: number;
  readonly refundChangesAfterSeconds: number;

  constructor(options: StateOptions = {}) {
    // Read at each use: tests move the process's clock.
    this.clock = options.now ?? (() => Date.now());
    this.debitSettlesAfterSeconds = options.debitSettlesAfterSeconds ?? 2 * 86_400;
    this.refundChangesAfterSeconds = options.refundChangesAfterSeconds ?? 86_400;
  }

  /** The stand-in's time in Unix seconds, as Stripe's `created` fields are. */
  seconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  addAccount(id: string): AccountState {
    const existing = this.accounts.get(id);
    if (existing) return existing;
    const account: AccountState = {
      id,
      customers: new Map(),
      methods: new Map(),
      setupIntents: new Map(),
      mandates: new Map(),
      intents: new Map(),
      charges: new Map(),
      refunds: new Map(),
      disputes: new Map(),
      events: [],
      debits: [],
      refundChanges: [],
    };
    this.accounts.set(id, account);
    return account;
  }

  /** The account a request acts on (its `Stripe-Account` header); the platform has none here. */
  account(id: string | undefined): AccountState {
    if (id === undefined)
      throw new StandInError(400, {
        type: 'invalid_request_error',
        message: 'The stand-in serves connected accounts only: send a Stripe-Account header.',
      });
    const found = this.accounts.get(id);
    if (!found)
      throw new StandInError(403, {
        type: 'invalid_request_error',
        code: 'account_invalid',
        message: `The provided key does not have access to account '${id}' (or that account does not exist).`,
      });
    return found;
  }

  allAccounts(): AccountState[] {
    return [...this.accounts.values()];
  }

  onEvent(listener: (event: Stripe.Event) => void): void {
    this.listeners.push(listener);
  }

  /** Records an event of `object` on the account and tells the listeners (webhook delivery). */
  emit(
    account: AccountState,
    type: string,
    object: { object: string },
    previous?: Record<string, unknown>,
  ): Stripe.Event {
    const event = eventObject({
      id: newStripeId('evt'),
      created: this.seconds(),
      account: account.id,
      type,
      object: structuredClone(object),
      ...(previous !== undefined && { previous_attributes: previous }),
    });
    account.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }
}

/** Stripe's list order and paging: newest first, `limit` (default 10, at most 100), `starting_after`. */
export function page<T extends { id: string; created: number }>(
  items: readonly T[],
  params: { limit?: unknown; starting_after?: unknown; ending_before?: unknown },
): { data: T[]; hasMore: boolean } {
  const ordered = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => b.item.created - a.item.created || b.index - a.index)
    .map(({ item }) => item);
  const limit = params.limit === undefined ? 10 : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new StandInError(400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid_integer',
      message: 'Invalid integer: limit must be between 1 and 100.',
      param: 'limit',
    });
  let start = 0;
  if (typeof params.starting_after === 'string') {
    const at = ordered.findIndex((item) => item.id === params.starting_after);
    if (at < 0)
      throw new StandInError(404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such object: '${params.starting_after}'`,
        param: 'starting_after',
      });
    start = at + 1;
  }
  const data = ordered.slice(start, start + limit);
  return { data, hasMore: start + limit < ordered.length };
}

/** `created[gte]`, `created[lt]`... of a list request, as a test on a Unix time. */
export function createdFilter(created: unknown): (seconds: number) => boolean {
  if (created === undefined) return () => true;
  if (typeof created === 'string') return (s) => s === Number(created);
  const bounds = created as Record<string, string | undefined>;
  const n = (key: string) => (bounds[key] === undefined ? undefined : Number(bounds[key]));
  const [gt, gte, lt, lte] = [n('gt'), n('gte'), n('lt'), n('lte')];
  return (s) =>
    (gt === undefined || s > gt) &&
    (gte === undefined || s >= gte) &&
    (lt === undefined || s < lt) &&
    (lte === undefined || s <= lte);
}
