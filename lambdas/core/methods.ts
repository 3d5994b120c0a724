/** Creating a saved method: validate, tokenize at the processor, keep only token and mask. */
import { newMethod, parseMethodInput, type SavedMethod } from '#domain/payors';
import { newId } from '#shared/ids';
import { paymentProcessor } from '#processor/index';

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
  const { token, fingerprint } = await paymentProcessor().tokenize(
    input.accountType === 'CHECKING'
      ? { ...owner, kind: 'bank', routingNumber: input.routingNumber, accountNumber: input.accountNumber }
      : {
          ...owner,
          kind: 'card',
          number: input.cardNumber,
          expiryMonth: input.expiryMonth,
          expiryYear: input.expiryYear,
        },
  );
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
    ),
    // What counts the retries of one card across methods and payors (core/retries.ts).
    ...(fingerprint !== undefined && { fingerprint }),
  };
  return { method, setAsDefault: input.setAsDefault === true };
}
