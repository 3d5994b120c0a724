/**
 * Payors and saved payment methods: records, views and rules
 * (docs/product.md#payors-and-saved-methods). The default method is one attribute of the
 * payor (`defaultPaymentMethodId`), so "exactly one default" holds by construction, under any
 * concurrency; `isDefault` is derived.
 */
import type { EventType } from '#contract/events';
import { BadRequestError } from '#shared/errors';
import { newEvent, type ServiceEvent } from './events';
import {
  type CardMethodInput,
  type MethodInput,
  type PayorView,
  type SavedMethodView,
  type UpdateMethodInput,
} from '#contract/schemas/payors';
import { assertNotExpired, isBank, isCard, maskNumber, type AccountType } from './cards';
import { byProcessorToken } from './method-input';

export interface BillingAddress {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface Payor {
  payorId: string;
  merchantId: string;
  customerAccountId?: string;
  customerAccountType?: string;
  sponsorKey?: string;
  customerData?: Record<string, string>;
  email?: string;
  defaultPaymentMethodId: string;
  /** Number of saved methods; guards "deleting the only remaining method is refused". */
  methodCount: number;
  dateCreated: string;
  lastUpdated: string;
  /**
   * Counts the writes of the payor item (its fields, its default, its method count): each write
   * adds one, and a payor update holds only at the revision it read. Absent: 0.
   */
  revision?: number;
  /** The number of events announced for the payor (absent: none); moves with its revision. */
  eventSeq?: number;
}

export interface SavedMethod {
  savedPaymentMethodId: string;
  payorId: string;
  merchantId: string;
  accountType: AccountType;
  maskedAccountNumber: string;
  /** The processor's vault token: what a charge uses. Never returned. */
  processorToken: string;
  /**
   * The processor's fingerprint of the card or bank account (a keyed hash, never the number):
   * retries are limited per fingerprint across the merchant's methods. Never returned. Absent on
   * methods vaulted before it was kept: their retries are counted per method.
   */
  fingerprint?: string;
  expiryMonth?: number;
  expiryYear?: number;
  billingAddress: BillingAddress;
  customerData?: Record<string, string>;
  dateCreated: string;
  lastUpdated: string;
  /** Counts the method's updates; one holds only at the revision it read. Absent: 0. */
  revision?: number;
  /**
   * The number of events announced for the method (absent: none; a payor's first method is
   * announced by its `payor.created`); moves with its revision.
   */
  eventSeq?: number;
  /**
   * What the account updater last learnt of the account (absent: `active`): a `closed` or
   * `contact_cardholder` method is never charged (its payments are declined R2, category 1).
   */
  status?: MethodStatus;
  /** Who made the last change of the method's account details (absent: nobody since creation). */
  updatedBy?: MethodUpdater;
  /**
   * When the acquirer learnt the last account update applied to the method (its `at`): one it
   * learnt earlier, arriving late, changes nothing. Never returned.
   */
  accountUpdateAt?: string;
  /** A bank's notification of change corrected the account (its number, routing number or type). */
  correctedBy?: 'noc';
  correctedAt?: string;
  /**
   * When the bank sent the last notification of change applied to the method (the notice's
   * `occurredAt`): one it sent earlier, arriving late, changes nothing. Never returned.
   */
  nocAt?: string;
  /**
   * Set while the method is being deleted (the mark written ahead of the deletion, with its
   * record): no payment may take the method from then on. Never returned.
   */
  deletion?: DeletionMark;
}

export type MethodStatus = 'active' | 'closed' | 'contact_cardholder' | 'revoked';
export type MethodUpdater = 'merchant' | 'account_updater';

/** The mark of a deletion under way on a method (and the record beside it holds the same). */
export interface DeletionMark {
  /** Names this deletion: its later writes hold only while the mark is still this one. */
  token: string;
  startedAt: string;
  /** The method the payments move to (`?replaceWith=`); absent: a plain delete. */
  replaceWith?: string;
  /** The whole payor is being deleted. */
  payor?: true;
}

/** A method the processor must not be asked to charge: the account is closed or in question. */
export const isUnusable = (m: Pick<SavedMethod, 'status'>): boolean =>
  m.status === 'closed' || m.status === 'contact_cardholder' || m.status === 'revoked';

/**
 * What the processor told of an account vaulted by its token (the service never saw the number):
 * its last four digits, a card's expiry and brand.
 */
interface TokenAccount {
  last4?: string;
  expiryMonth?: number;
  expiryYear?: number;
  brand?: string;
  /** A bank account's type, where the processor says it. */
  accountType?: string;
}

/**
 * The masked number and expiry of a new method: from its numbers, or, given by the processor's
 * token, from what the processor told (the last four digits after 12 `*`: the length is not
 * known), checked as the numbers would be (the brand or bank account type the merchant gave, an
 * expiry not past).
 */
function accountDetails(
  input: MethodInput,
  told: TokenAccount | undefined,
  now: Date,
): { maskedAccountNumber: string; expiryMonth?: number; expiryYear?: number } {
  if (!byProcessorToken(input)) {
    if ('accountNumber' in input) return { maskedAccountNumber: maskNumber(input.accountNumber) };
    const card = input as CardMethodInput;
    return {
      maskedAccountNumber: maskNumber(card.cardNumber),
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
    };
  }
  if (told?.last4 === undefined || !/^\d{4}$/.test(told.last4))
    throw new Error('the processor did not tell the last four digits of the account');
  const maskedAccountNumber = `${'*'.repeat(12)}${told.last4}`;
  if (isBank(input.accountType)) {
    if (told.accountType !== undefined && told.accountType !== input.accountType)
      throw new BadRequestError(
        `processorToken is a ${told.accountType} account but accountType is ${input.accountType}`,
      );
    return { maskedAccountNumber };
  }
  if (told.expiryMonth === undefined || told.expiryYear === undefined)
    throw new Error("the processor did not tell the card's expiry");
  if (told.brand !== input.accountType)
    throw new BadRequestError(
      `processorToken is ${told.brand === undefined ? 'a card of another brand' : `a ${told.brand} card`} but accountType is ${input.accountType}`,
    );
  assertNotExpired(told.expiryMonth, told.expiryYear, now);
  return { maskedAccountNumber, expiryMonth: told.expiryMonth, expiryYear: told.expiryYear };
}

export function newMethod(
  input: MethodInput,
  ids: { payorId: string; merchantId: string; savedPaymentMethodId: string },
  processorToken: string,
  now: Date,
  told?: TokenAccount,
): SavedMethod {
  const ts = now.toISOString();
  return {
    ...ids,
    accountType: input.accountType,
    ...accountDetails(input, told, now),
    processorToken,
    billingAddress: input.billingAddress,
    customerData: input.customerData,
    dateCreated: ts,
    lastUpdated: ts,
  };
}

/** PUT on a method: expiry (cards only, not past) and billing address; customerData too. */
export function updatedMethod(method: SavedMethod, input: UpdateMethodInput, now: Date): SavedMethod {
  const touchesExpiry = input.expiryMonth !== undefined || input.expiryYear !== undefined;
  if (touchesExpiry && !isCard(method.accountType)) {
    throw new BadRequestError('expiryMonth/expiryYear apply to cards only, not bank accounts');
  }
  const next: SavedMethod = {
    ...method,
    ...(touchesExpiry && {
      expiryMonth: input.expiryMonth ?? method.expiryMonth,
      expiryYear: input.expiryYear ?? method.expiryYear,
    }),
    billingAddress: input.billingAddress ?? method.billingAddress,
    customerData: input.customerData ?? method.customerData,
    ...(touchesExpiry && { updatedBy: 'merchant' as const }),
    lastUpdated: now.toISOString(),
    revision: (method.revision ?? 0) + 1,
    eventSeq: (method.eventSeq ?? 0) + 1,
  };
  if (touchesExpiry) assertNotExpired(next.expiryMonth!, next.expiryYear!, now);
  return next;
}

/** The method that becomes default when `deleting` (the default) goes: the oldest other one. */
export function replacementDefault(methods: SavedMethod[], deleting: string): string | undefined {
  return methods
    .filter((m) => m.savedPaymentMethodId !== deleting)
    .sort(
      (a, b) =>
        a.dateCreated.localeCompare(b.dateCreated) ||
        a.savedPaymentMethodId.localeCompare(b.savedPaymentMethodId),
    )[0]?.savedPaymentMethodId;
}

export const methodView = (m: SavedMethod, defaultId: string): SavedMethodView => ({
  savedPaymentMethodId: m.savedPaymentMethodId,
  payorId: m.payorId,
  accountType: m.accountType,
  maskedAccountNumber: m.maskedAccountNumber,
  ...(m.expiryMonth !== undefined && { expiryMonth: m.expiryMonth, expiryYear: m.expiryYear }),
  billingAddress: m.billingAddress,
  isDefault: m.savedPaymentMethodId === defaultId,
  customerData: m.customerData ?? {},
  status: m.status ?? 'active',
  ...(m.updatedBy !== undefined && { updatedBy: m.updatedBy }),
  ...(m.correctedBy !== undefined && { correctedBy: m.correctedBy, correctedAt: m.correctedAt }),
  dateCreated: m.dateCreated,
  lastUpdated: m.lastUpdated,
});

export const payorView = (p: Payor, methods: SavedMethod[]): PayorView => ({
  payorId: p.payorId,
  customerAccountId: p.customerAccountId ?? null,
  customerAccountType: p.customerAccountType ?? null,
  sponsorKey: p.sponsorKey ?? null,
  customerData: p.customerData ?? {},
  email: p.email ?? null,
  defaultPaymentMethodId: p.defaultPaymentMethodId,
  savedPaymentMethods: methods.map((m) => methodView(m, p.defaultPaymentMethodId)),
  dateCreated: p.dateCreated,
  lastUpdated: p.lastUpdated,
});

/** The event announcing `type` of a payor as it is after the change (its `eventSeq` the event's sequence). */
export const payorEvent = (
  type: EventType,
  payor: Payor,
  methods: SavedMethod[],
  now: Date,
): ServiceEvent<PayorView> =>
  newEvent(
    {
      type,
      merchantId: payor.merchantId,
      objectId: payor.payorId,
      sequence: payor.eventSeq ?? 1,
      data: payorView(payor, methods),
    },
    now,
  );

/** The event announcing `type` of a saved method as it is after the change. */
export const methodEvent = (
  type: EventType,
  method: SavedMethod,
  defaultId: string,
  now: Date,
): ServiceEvent<SavedMethodView> =>
  newEvent(
    {
      type,
      merchantId: method.merchantId,
      objectId: method.savedPaymentMethodId,
      sequence: method.eventSeq ?? 1,
      data: methodView(method, defaultId),
    },
    now,
  );

/** `{payorId}/{savedPaymentMethodId}` */
export function parseProfileId(profileId: string): { payorId: string; savedPaymentMethodId: string } {
  const [payorId = '', savedPaymentMethodId = ''] = profileId.split('/');
  return { payorId: payorId.toLowerCase(), savedPaymentMethodId: savedPaymentMethodId.toLowerCase() };
}
