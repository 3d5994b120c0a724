/**
 * Decline categories: 1 = do not retry (permanent), 2 = may retry (temporary). Response codes are
 * ISO 8583-style processor codes. The OpenAPI document lists them; the processors and the
 * transaction views use them.
 */
export type DeclineCategory = '1' | '2';

export const DECLINE_CATEGORY_DESCRIPTIONS: Record<DeclineCategory, string> = {
  '1': 'Do not retry: the decline is permanent (card or account problem)',
  '2': 'May retry: the decline is temporary (funds, limits or issuer availability)',
};

/** Known decline codes: message and category. */
export const DECLINE_CODES: Record<string, { message: string; category: DeclineCategory }> = {
  '04': { message: 'Pick up card', category: '1' },
  '05': { message: 'Do not honor', category: '1' },
  '13': { message: 'Invalid amount', category: '1' },
  '14': { message: 'Invalid card number', category: '1' },
  '19': { message: 'Duplicate transaction', category: '1' },
  '41': { message: 'Lost card', category: '1' },
  '43': { message: 'Stolen card', category: '1' },
  '54': { message: 'Expired card', category: '1' },
  '57': { message: 'Transaction not permitted', category: '1' },
  '62': { message: 'Restricted card', category: '1' },
  '78': { message: 'Card not activated', category: '1' },
  /** The charge needs the cardholder (3-D Secure, a PIN): a scheduled charge cannot ask them. */
  '1A': { message: 'Cardholder authentication required', category: '1' },
  /** Visa R0/R1/R3: the payor stopped this payment or revoked the merchant's authorization. */
  R0: { message: 'Payment authorization revoked', category: '1' },
  R2: { message: 'Account closed', category: '1' },
  N7: { message: 'Invalid security code', category: '1' },
  '51': { message: 'Insufficient funds', category: '2' },
  '61': { message: 'Daily limit exceeded', category: '2' },
  '91': { message: 'Issuer unavailable', category: '2' },
  '96': { message: 'Communication error', category: '2' },
  /** Not a processor code: the saved method or payor behind a scheduled payment is gone. */
  PM: { message: 'Payment method no longer exists', category: '1' },
};
