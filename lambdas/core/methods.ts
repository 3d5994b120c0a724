/** Creating a saved method: validate, tokenize at the processor, keep only token and mask. */
import type { MethodInput } from '#contract/schemas/payors';
import { byProcessorToken, parseMethodInput } from '#domain/method-input';
import { newMethod, type SavedMethod } from '#domain/payors';
import { newId } from '#shared/ids';
import { isBank } from '#domain/cards';
import { paymentProcessor } from '#core/processor';
import { ProcessorUnavailableError, type Vaulted, type VaultedAccount } from '#processor/processor';

/** What the processor vaults: the numbers, or its own token; a bank account with its mandate. */
function accountOf(input: MethodInput): VaultedAccount {
  const mandate = 'mandate' in input && input.mandate !== undefined ? { mandate: input.mandate } : {};
  if (byProcessorToken(input))
    return isBank(input.accountType)
      ? { kind: 'bank', processorToken: input.processorToken, ...mandate }
      : { kind: 'card', processorToken: input.processorToken };
  if ('accountNumber' in input)
    return {
      kind: 'bank',
      routingNumber: input.routingNumber,
      accountNumber: input.accountNumber,
      accountType: input.accountType,
      ...mandate,
    };
  return {
    kind: 'card',
    number: input.cardNumber,
    expiryMonth: input.expiryMonth,
    expiryYear: input.expiryYear,
  };
}

/** The last four digits, and a card's expiry month 1-12 and four-digit year. */
const toldEnough = (told: Vaulted, bank: boolean): boolean =>
  typeof told.last4 === 'string' &&
  /^\d{4}$/.test(told.last4) &&
  (bank ||
    (Number.isInteger(told.expiryMonth) &&
      told.expiryMonth! >= 1 &&
      told.expiryMonth! <= 12 &&
      Number.isInteger(told.expiryYear) &&
      told.expiryYear! >= 1000 &&
      told.expiryYear! <= 9999));

interface NewMethodRequest {
  raw: unknown;
  payorId: string;
  merchantId: string;
  now: Date;
  /** Prefix for field names in messages (`paymentMethod`). */
  root?: string;
  /** The new method's id (a keyed request's resource id); a new one otherwise. */
  savedPaymentMethodId?: string;
}

export async function createMethod(
  request: NewMethodRequest,
): Promise<{ method: SavedMethod; setAsDefault: boolean }> {
  const input = parseMethodInput(request.raw, request.now, request.root);
  // The merchant and the payor: a processor may keep each merchant's vault, and each payor's
  // customer, apart (Stripe: a connected account, a customer per payor).
  const owner = { merchantId: request.merchantId, payorId: request.payorId };
  const vaulted = await paymentProcessor().tokenize({ ...owner, ...accountOf(input) });
  const { token, fingerprint } = vaulted;
  // What the processor must tell of an account it vaulted from its own token, well formed (an
  // adapter's answer is an outside system's: null, a number, a month 13): no answer otherwise.
  if (byProcessorToken(input) && !toldEnough(vaulted, isBank(input.accountType)))
    throw new ProcessorUnavailableError('the processor did not tell the account’s last digits or expiry');
  const method: SavedMethod = {
    ...newMethod(
      input,
      {
        payorId: request.payorId,
        merchantId: request.merchantId,
        savedPaymentMethodId: request.savedPaymentMethodId ?? newId(),
      },
      token,
      request.now,
      vaulted,
    ),
    // What counts the retries of one card across methods and payors (core/retries.ts).
    ...(fingerprint !== undefined && { fingerprint }),
  };
  return { method, setAsDefault: input.setAsDefault === true };
}
