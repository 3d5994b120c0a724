import { DECLINE_CATEGORY_DESCRIPTIONS, DECLINE_CODES, declineOf } from '#domain/declines';

describe('decline categories (docs/product.md#decline-categories-and-codes)', () => {
  it.each([
    ['41', 'lost card', 'Lost card'],
    ['43', 'stolen card', 'Stolen card'],
    ['62', 'restricted card', 'Restricted card'],
    ['14', 'invalid card number', 'Invalid card number'],
    ['R2', 'closed account', 'Account closed'],
    ['54', 'expired card', 'Expired card'],
    ['N7', 'invalid security code', 'Invalid security code'],
    ['78', 'card not activated', 'Card not activated'],
    ['05', 'do-not-honor', 'Do not honor'],
  ])('%s (%s) is category 1: do not retry', (code, _reason, message) => {
    expect(declineOf(code)).toEqual({
      message,
      category: '1',
      description: DECLINE_CATEGORY_DESCRIPTIONS['1'],
    });
  });

  it.each([
    ['51', 'insufficient funds', 'Insufficient funds'],
    ['96', 'communication error', 'Communication error'],
    ['91', 'issuer unavailable', 'Issuer unavailable'],
    ['61', 'daily limit exceeded', 'Daily limit exceeded'],
  ])('%s (%s) is category 2: may retry', (code, _reason, message) => {
    expect(declineOf(code)).toEqual({
      message,
      category: '2',
      description: DECLINE_CATEGORY_DESCRIPTIONS['2'],
    });
  });

  it('a duplicate (19) is a permanent decline: the same sale must not simply be sent again', () => {
    expect(declineOf('19')).toMatchObject({ message: 'Duplicate transaction', category: '1' });
  });

  it('an unknown code is treated as permanent, with a generic message', () => {
    expect(declineOf('ZZ')).toEqual({
      message: 'Declined',
      category: '1',
      description: DECLINE_CATEGORY_DESCRIPTIONS['1'],
    });
  });

  it('describes both categories, each in its own words', () => {
    expect(DECLINE_CATEGORY_DESCRIPTIONS['1']).toMatch(/^Do not retry/);
    expect(DECLINE_CATEGORY_DESCRIPTIONS['2']).toMatch(/^May retry/);
    expect(DECLINE_CATEGORY_DESCRIPTIONS['1']).not.toBe(DECLINE_CATEGORY_DESCRIPTIONS['2']);
  });

  it('every known code has a message, a category 1 or 2 and a description', () => {
    for (const [code, known] of Object.entries(DECLINE_CODES)) {
      const decline = declineOf(code);
      expect([code, typeof decline.message, decline.message.length > 0]).toEqual([code, 'string', true]);
      expect(['1', '2']).toContain(known.category);
      expect(decline.description).toBe(DECLINE_CATEGORY_DESCRIPTIONS[known.category]);
    }
  });
});
