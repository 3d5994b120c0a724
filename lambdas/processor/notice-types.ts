/**
 * The processor port's notices (docs/architecture.md "Notices"): what a processor answers later,
 * by its webhook or its backstop's listing, and the account updates and bank account types they
 * carry. Re-exported by processor.ts, the port.
 */
/**
 * What the card networks' account updater (Visa VAU, Mastercard ABU) learnt of a vaulted card,
 * as an acquirer reports it: by the vault token, never with a full number.
 * - `new_expiry`: the same card, a new expiry;
 * - `new_number`: a new card (masked number, fingerprint and expiry); the token charges it from now;
 * - `closed`: the account is closed; `contact_cardholder`: the issuer asks to contact the
 *   cardholder (no automatic update). Neither may be charged.
 */
export type AccountUpdate = {
  /** The acquirer's id of the update: the same update always has the same id. */
  updateId: string;
  token: string;
  /** When the acquirer learnt it (UTC ISO-8601); updates are listed in this order. */
  at: string;
} & (
  | { kind: 'new_expiry'; expiryMonth: number; expiryYear: number }
  | {
      kind: 'new_number';
      maskedAccountNumber: string;
      fingerprint?: string;
      expiryMonth: number;
      expiryYear: number;
    }
  | { kind: 'closed' | 'contact_cardholder' }
);

/** The bank account types a debit goes to (a NOC may correct one to the other). */
export type BankAccountType = 'CHECKING' | 'SAVINGS';

/**
 * What the processor answers later about something it accepted: notices (docs/architecture.md
 * "Notices"). Every notice has a `noticeId` that names it wherever it comes from (the processor's
 * webhook, the backstop's listing, a repeat of either): the service applies each once.
 *
 * `objectId` is the processor's id of the object the notice is about (a charge, a dispute, a vault
 * token) and `sequence` the processor's order of that object's notices: per object they apply in
 * that order, and one older than the last applied changes nothing (a late notice never moves a
 * record back). `occurredAt` is the processor's time of the event.
 */
interface NoticeBase {
  noticeId: string;
  /** The service's merchant (11-digit MID) whose record it is, as the adapter resolved it. */
  merchantId: string;
  objectId: string;
  /** The processor's order of the object's notices (an adapter without one: the event's epoch ms). */
  sequence: number;
  occurredAt: string;
}

/**
 * The charge a notice is about: the processor's id and the idempotency key the service sent with
 * it (`sale:<transactionId>`, `payment:<paymentId>[:<attempt>]`), which names the service's record
 * (as reconciliation matches them).
 */
export interface NoticeCharge {
  processorTransactionId: string;
  idempotencyKey: string;
}

/**
 * What a notification of change corrects, as the vault now holds it: the new account number's
 * masked form and fingerprint, the account type, whether the routing number changed. Never a
 * full number.
 */
export interface NocCorrection {
  maskedAccountNumber?: string;
  fingerprint?: string;
  accountType?: BankAccountType;
  routingNumberChanged?: boolean;
}

/** A card dispute's state as the processor reports it (docs/product.md "Disputes"). */
type DisputeStatus = 'inquiry' | 'needs_response' | 'under_review' | 'won' | 'lost';

export interface NoticeDispute {
  /** The processor's dispute id (the notice's objectId). */
  disputeId: string;
  status: DisputeStatus;
  /** `fraudulent`, `product_not_received`, `duplicate`, `subscription_canceled`, `unrecognized`, `general`, ... */
  reason: string;
  /** What the processor disputes (cents). */
  amountCents: number;
  evidenceDueBy?: string;
}

/**
 * A refund the processor accepted and could not give back later (Stripe: its status turned
 * `failed`, or `canceled`): the cardholder never got the money.
 */
export interface NoticeRefund {
  /** The processor's id of the refund (the notice's objectId). */
  processorRefundId: string;
  /**
   * The key the service sent with it (`refund:<refundId>`; `void:<transactionId>` where a void is
   * a refund by another name): it names the service's record.
   */
  idempotencyKey: string;
  /** What it was to give back (cents). */
  amountCents: number;
  /**
   * The processor's reason (Stripe's `failure_reason`: `expired_or_canceled_card`,
   * `lost_or_stolen_card`, `declined`, `unknown`, ...; `canceled` for a canceled refund).
   */
  reason: string;
}

/**
 * One notice:
 * - `cleared`: a bank debit cleared (money arrived; it may still be returned as unauthorized);
 * - `returned`: a bank debit was returned with an R-code (`R01`...), before or after clearing;
 * - `noc`: a notification of change (C-code) for the account a debit went to, with the corrected
 *   fields; the debit itself stands;
 * - `dispute_opened`, `dispute_updated`, `dispute_closed`: a card charge's dispute;
 * - `account_update`: a card network's account update (the account updater's report, pushed one
 *   at a time by a processor that sends them as they come);
 * - `refund_failed`: a refund of the charge the processor accepted failed since (the money never
 *   reached the cardholder).
 */
export type ProcessorNotice = NoticeBase &
  (
    | { kind: 'cleared'; charge: NoticeCharge; clearedAt: string }
    | {
        kind: 'returned';
        charge: NoticeCharge;
        /** Nacha return reason code, `R01`... */
        code: string;
        /** The processor's words for it (the service has its own for the codes it knows). */
        reason?: string;
        returnedAt: string;
      }
    | {
        kind: 'noc';
        charge: NoticeCharge;
        /** The vault token of the corrected account (the method it was saved as). */
        token: string;
        /** Nacha change code, `C01`... */
        code: string;
        corrected: NocCorrection;
      }
    | ({
        kind: 'dispute_opened' | 'dispute_updated' | 'dispute_closed';
        charge: NoticeCharge;
      } & NoticeDispute)
    | { kind: 'account_update'; update: AccountUpdate }
    | { kind: 'refund_failed'; charge: NoticeCharge; refund: NoticeRefund }
  );

/** What a backstop's page asks for. */
export interface NoticeListing {
  /** Where the last page ended (absent: from the processor's earliest it still keeps). */
  cursor?: string;
  /** At most this many notices. */
  limit: number;
  /** The time the listing counts from (the run's; default: the processor's clock). */
  now?: string;
  /**
   * Epoch ms after which the page ends early, at an account's or an event's boundary, saying
   * there is more: so that a page of a processor whose listing takes many calls stays within the
   * run's time.
   */
  deadlineMs?: number;
}

/** A page of the processor's notices since a cursor (the backstop's listing). */
export interface NoticePage {
  /** Oldest first per object (a processor that lists account by account: within each account). */
  notices: ProcessorNotice[];
  /** Where the next listing starts (opaque to the service; kept as the processor gave it). */
  cursor: string;
  /** More notices are due after this page: list again from `cursor`. */
  more: boolean;
}

/**
 * A processor's webhook as its inbound route received it: the raw body, the headers (lower-case
 * names), and the endpoint's signing secret (read by the route's function alone, on first use;
 * `fresh`: read again, for a signature the secret in memory refused, since operators roll it).
 */
export interface WebhookRequest {
  body: string;
  headers: Readonly<Record<string, string | undefined>>;
  signingSecret: (fresh?: boolean) => Promise<string>;
}

/**
 * What a processor's webhook said, once verified: its notices (none when it is of an unknown
 * account or of a kind that is not a notice: `ignored` says which), or why it was refused
 * (verified before anything of it is read).
 */
export type WebhookReading =
  | { verified: false; why: string }
  | { verified: true; notices: ProcessorNotice[]; ignored?: 'unknown_account' | 'not_a_notice' };
