/**
 * A new saved method's input, checked (docs/product.md#payors-and-saved-methods): its schema by
 * account type (a card, a bank account; by numbers or by the processor's token), then the rules a
 * schema cannot state (a card number's brand and check digit, an expiry not past, an ABA routing
 * number, a mandate accepted in the past). Every refusal lists its problems with their fields.
 */
import { isIP } from 'node:net';
import {
  type CardMethodInput,
  type CardTokenMethodInput,
  type CheckingMethodInput,
  type CheckingTokenMethodInput,
  type MandateInput,
  type MethodInput,
} from '#contract/schemas/payors';
import {
  validateAccountType,
  validateCardMethod,
  validateCardTokenMethod,
  validateCheckingMethod,
  validateCheckingTokenMethod,
} from '#generated/validators';
import { BadRequestError } from '#shared/errors';
import { validator, ValidationError, type Problem } from '#shared/validation';
import {
  assertBankAccount,
  assertCardNumber,
  assertNotExpired,
  isBank,
  type AccountType,
  type CardType,
} from './cards';

// Pure: a bundle that never parses a method (the batch functions) drops these validators.
const parseAccountType = /* @__PURE__ */ validator<{ accountType: AccountType }>(validateAccountType);
const parseCard = /* @__PURE__ */ validator<CardMethodInput>(validateCardMethod);
const parseChecking = /* @__PURE__ */ validator<CheckingMethodInput>(validateCheckingMethod);
const parseCardToken = /* @__PURE__ */ validator<CardTokenMethodInput>(validateCardTokenMethod);
const parseCheckingToken = /* @__PURE__ */ validator<CheckingTokenMethodInput>(validateCheckingTokenMethod);

/** Whether a new method is given by the processor's token rather than by its numbers. */
export const byProcessorToken = (
  input: MethodInput,
): input is CardTokenMethodInput | CheckingTokenMethodInput => 'processorToken' in input;

/** How long a mandate's `acceptedAt` may be ahead of the service's clock (clocks differ). */
const MANDATE_CLOCK_SKEW_MS = 5 * 60_000;

/** A mandate's rules beyond its schema: accepted in the past, online with where and how. */
function assertMandate(mandate: MandateInput | undefined, now: Date): void {
  if (mandate === undefined) return;
  if (Date.parse(mandate.acceptedAt) > now.getTime() + MANDATE_CLOCK_SKEW_MS)
    throw new BadRequestError('mandate.acceptedAt is in the future');
  if (mandate.ipAddress !== undefined && isIP(mandate.ipAddress) === 0)
    throw new BadRequestError('mandate.ipAddress is not an IPv4 or IPv6 address');
  if (mandate.method === 'online' && (mandate.ipAddress === undefined || mandate.userAgent === undefined))
    throw new BadRequestError('mandate: an online mandate needs the payor’s ipAddress and userAgent');
}

/**
 * The field a method's rule names first in its message (`cardNumber is not a valid card number`,
 * `mandate.acceptedAt is in the future`, `mandate: an online mandate needs ...`); '' for none.
 */
const fieldOfRule = (message: string): string => /^([A-Za-z][A-Za-z0-9_.]*):? /.exec(message)?.[1] ?? '';

/** A method's problems, every one, named under `root` when given (`paymentMethod.billingAddress`). */
const methodProblems = (e: BadRequestError, root: string): Problem[] =>
  (e instanceof ValidationError ? e.problems : [{ field: fieldOfRule(e.message), message: e.message }]).map(
    (p) => {
      const field = p.field === 'body' ? '' : p.field;
      return root === ''
        ? { field: field || 'body', message: p.message }
        : { field: field ? `${root}.${field}` : root, message: `${root}.${p.message}` };
    },
  );

/**
 * The problems of a payor create's `paymentMethod` (none when it is valid), for the 400 that lists
 * them with the body's own.
 */
export function methodInputProblems(value: unknown, now: Date, root: string): Problem[] {
  try {
    parseMethodInput(value, now);
    return [];
  } catch (error) {
    if (error instanceof BadRequestError) return methodProblems(error, root);
    throw error;
  }
}

/**
 * Validates a new method (card: Luhn, brand, expiry not past; CHECKING or SAVINGS: ABA routing number).
 * `root` prefixes field names in messages (`paymentMethod.cardNumber`).
 */
export function parseMethodInput(value: unknown, now: Date, root = ''): MethodInput {
  // Every refusal lists its problems with their fields (DESIGN: `errors`), its rules' too.
  const prefix = (e: unknown) => {
    if (e instanceof BadRequestError) throw new ValidationError(methodProblems(e, root));
    throw e;
  };
  try {
    const { accountType } = parseAccountType(value);
    const byToken = typeof value === 'object' && value !== null && 'processorToken' in value;
    if (isBank(accountType)) {
      if (byToken) {
        const input = parseCheckingToken(value);
        assertMandate(input.mandate, now);
        return input;
      }
      const input = parseChecking(value);
      assertBankAccount(input.routingNumber, input.accountNumber);
      assertMandate(input.mandate, now);
      return input;
    }
    if (byToken) return parseCardToken(value);
    const input = parseCard(value);
    assertCardNumber(input.cardNumber, input.accountType as CardType);
    assertNotExpired(input.expiryMonth, input.expiryYear, now);
    return input;
  } catch (error) {
    return prefix(error);
  }
}
