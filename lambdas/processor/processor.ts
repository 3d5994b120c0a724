/**
 * The processor adapter: what an acquirer integration implements. Every money-moving call carries
 * an idempotency key; calling again with the same key returns the first result and moves no
 * money a second time (that is what makes retried steps safe).
 */
export type {
  AccountUpdate,
  BankAccountType,
  NoticeCharge,
  NoticeListing,
  NoticePage,
  ProcessorNotice,
  WebhookReading,
  WebhookRequest,
} from './notice-types';
import type {
  AccountUpdate,
  BankAccountType,
  NoticeListing,
  NoticePage,
  WebhookReading,
  WebhookRequest,
} from './notice-types';

/**
 * The payor's authorization to debit a bank account, as the merchant attests it (Nacha: the
 * payor's authorization, kept by the merchant): when and how it was given; online, the payor's IP
 * address and browser.
 */
export interface BankMandate {
  /** When the payor accepted (UTC ISO-8601). */
  acceptedAt: string;
  method: 'online' | 'paper' | 'phone';
  ipAddress?: string;
  userAgent?: string;
}

/**
 * What is vaulted: a card or a bank account by its numbers, or by a `processorToken` that the
 * processor's own browser fields made (the service never sees that account's numbers). A bank
 * account by its numbers carries its type (the debit's transaction code follows it), and the
 * payor's mandate where the processor keeps one (Stripe does; the sandbox does not ask).
 */
export type VaultedAccount =
  | { kind: 'card'; number: string; expiryMonth: number; expiryYear: number }
  | { kind: 'card'; processorToken: string }
  | ({ kind: 'bank'; routingNumber: string; accountNumber: string; accountType: BankAccountType } & Mandated)
  | ({ kind: 'bank'; processorToken: string } & Mandated);

type Mandated = { mandate?: BankMandate };

/** An account given by its numbers (not by a processor's token). */
export type NumberedAccount = Exclude<VaultedAccount, { processorToken: string }>;

/**
 * A tokenization: the account, and whose it is. A processor may keep each merchant's vault apart
 * (Stripe: the merchant's connected account) and one customer per payor.
 */
export type TokenizeRequest = { merchantId: string; payorId: string } & VaultedAccount;

export interface SaleRequest {
  idempotencyKey: string;
  /**
   * When the service first used this key (at or before its first call): a processor that forgets
   * keys after a while (Stripe: 24 hours) looks for the charge made since then before it charges
   * again, so that one key is one charge whatever its age.
   */
  keyFirstUsedAt: string;
  merchantId: string;
  token: string;
  amountCents: number;
  allowPartial: boolean;
  /**
   * Aborted when the caller gave up on the call (the adapter's timeout, processor/timeout.ts): an
   * adapter that reads before it charges (Stripe, for a key it may have forgotten) never starts
   * the charge after, as the caller's timeout reversal may already have run and found nothing.
   */
  signal?: AbortSignal;
}

export interface SaleResult {
  approved: boolean;
  processorTransactionId: string;
  /** ISO 8583-style response code: '00' approved, '10' partial, others declines. */
  responseCode: string;
  responseMessage: string;
  approvedCents: number;
  authCode?: string;
  /**
   * The card network's merchant advice code on a decline, when it gave one (Mastercard: `01`
   * new account information, `02` try again later, `03` do not try again, `21` cancelled).
   */
  merchantAdviceCode?: string;
  /** When the processor decided (UTC ISO-8601). */
  processedAt: string;
}

/**
 * A vaulted account: the token charges it; the fingerprint names the card or bank account the
 * same way whichever method, payor or merchant vaulted it (as acquirers give one: a keyed hash,
 * never the number), so that retries of one card are counted together (core/retries.ts).
 */
export interface Vaulted {
  token: string;
  fingerprint?: string;
  /**
   * What the processor knows of an account vaulted by `processorToken` (the service never saw
   * its number): its last four digits and, for a card, its expiry.
   */
  last4?: string;
  expiryMonth?: number;
  expiryYear?: number;
  /**
   * A card's brand as the processor read it (`VISA`, `MASTERCARD`, `AMEX`, `DISCOVER`; absent for
   * another brand or a bank account), or a bank account's type (absent where the processor does
   * not say): an account vaulted by `processorToken` is checked against the accountType given.
   */
  brand?: string;
  accountType?: BankAccountType;
}

/** A sale that got no answer, to be answered as declined (`reverseUnanswered`). */
export interface UnansweredRequest {
  idempotencyKey: string;
  merchantId: string;
  /** As in the sale (`SaleRequest.keyFirstUsedAt`). */
  keyFirstUsedAt: string;
  /** The method's token, when the caller still has it: narrows the search for the charge. */
  token?: string;
}

export interface ReversalRequest {
  idempotencyKey: string;
  merchantId: string;
  processorTransactionId: string;
  amountCents: number;
}

export interface ReversalResult {
  approved: boolean;
  processorTransactionId: string;
  responseCode: string;
  responseMessage: string;
  processedAt: string;
}

/**
 * One money-moving call as the processor recorded it: a line of an acquirer's settlement or
 * activity report. Reconciliation (lambdas/core/reconcile.ts) matches these with the service's records.
 */
/**
 * A line of the processor's activity report: a sale, a void or a refund it was asked for, or a
 * bank debit's return as it reports it (`return`: the debit's key and id, the amount the debit
 * took, the return code as `responseCode`, `at` when it was returned; `approved` true).
 */
export interface ProcessorActivity {
  kind: 'sale' | 'void' | 'refund' | 'return';
  /** The key the service sent (domain/processor-keys.ts: `sale:…`, `payment:…`, `void:…`, `refund:…`). */
  idempotencyKey: string;
  merchantId: string;
  processorTransactionId: string;
  /** A void's or refund's sale (the processor's id); absent for sales. */
  originalProcessorTransactionId?: string;
  /** False for a declined sale, a refused reversal and a sale reversed for want of an answer. */
  approved: boolean;
  /** Money moved: a sale's approved amount, a reversal's amount; 0 when not approved. */
  amountCents: number;
  responseCode: string;
  /** When the processor recorded it (UTC ISO-8601). */
  at: string;
}

export interface PaymentProcessor {
  /** Vaults an account number and returns a token; the number is not kept by the caller. */
  tokenize(request: TokenizeRequest): Promise<Vaulted>;
  sale(request: SaleRequest): Promise<SaleResult>;
  /**
   * Whether a bank debit can be voided before its settlement cut-off: the sandbox can (the entry
   * leaves the batch before the file goes out); Stripe cannot cancel a debit once submitted. Where
   * it cannot, any reversal of a debit that has not cleared is a refund held until it clears
   * (docs/product.md "Reversals of bank debits").
   */
  readonly voidsBankDebits: boolean;
  /**
   * Whether a card sale's void is a refund by another name: the charge moved money and the void
   * gave it back (Stripe: every reversal is a refund), so the cardholder can still dispute it. The
   * sandbox's void takes the sale out of its batch (no money moved: nothing to dispute).
   */
  readonly voidIsRefund: boolean;
  /** Reverses an unsettled sale in full. */
  void(request: ReversalRequest): Promise<ReversalResult>;
  /** Returns money of a settled sale, in full or in part. */
  refund(request: ReversalRequest): Promise<ReversalResult>;
  /**
   * Timeout reversal: the sale sent with this idempotency key got no answer. The adapter finds the
   * charge by its key: if it moved money it is reversed, if none exists nothing moves (and a sale
   * with that key arriving late moves none). Afterwards the key has moved no money.
   */
  reverseUnanswered(request: UnansweredRequest): Promise<void>;
  /**
   * Test clock (non-production): settles these approved sales now, as an acquirer's test
   * environment can; answers the settlement time. An adapter without one leaves it out, and the
   * settle-now operation answers 403.
   */
  settleNow?(request: {
    merchantId: string;
    processorTransactionIds: string[];
  }): Promise<{ settledAt: string }>;
  /** When a sale approved at `processedAt` settles (settlement cut-off). */
  settlementTime(processedAt: string): string;
  /**
   * Every call recorded from `since` (inclusive) to `until` (exclusive; default now), oldest
   * first: what a real acquirer's daily settlement report provides.
   */
  listActivity(since: string, until?: string): Promise<ProcessorActivity[]>;
  /**
   * The account updates the acquirer learnt from `since` (inclusive) to `until` (exclusive;
   * default now), oldest first. Listing again returns the same updates with the same ids.
   */
  accountUpdates(since: string, until?: string): Promise<AccountUpdate[]>;
  /**
   * The backstop of notices (docs/architecture.md "Notices"): the notices due since `cursor`
   * (absent: from the processor's earliest it still keeps), oldest first, at most `limit`.
   * Listing again from an earlier cursor returns the same notices with the same ids. A processor
   * that never answers later (card-only, no disputes) leaves it out.
   */
  listNotices?(request: NoticeListing): Promise<NoticePage>;
  /**
   * Test clock (non-production): brings the merchant's notices due at the next settlement cut-off
   * forward to now (they are then listed, and delivered, at once); answers how many.
   */
  noticesNow?(request: { merchantId: string }): Promise<{ broughtForward: number }>;
  /**
   * The processor's signed webhook (its inbound route, `POST /processor-events/<processor>`):
   * verified, then read as notices. A processor that sends none leaves it out.
   */
  readWebhook?(request: WebhookRequest): Promise<WebhookReading>;
}

/** Thrown when the processor could not be reached or gave no definite answer: retry with the same key. */
export class ProcessorUnavailableError extends Error {
  override readonly name = 'ProcessorUnavailableError';
  /**
   * The processor refused the adapter's credentials (Stripe: HTTP 401), so it did nothing. An
   * adapter loaded on use is then loaded again, its secret read anew: an operator may have rolled
   * it (processor/index.ts).
   */
  readonly credentialsRefused: boolean;

  constructor(message: string, options: { credentialsRefused?: boolean } = {}) {
    super(message);
    this.credentialsRefused = options.credentialsRefused === true;
  }
}
