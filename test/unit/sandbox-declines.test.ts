/**
 * Issue 12, item 6: the sandbox has an outcome for every decline the specification names
 * (docs/product.md#decline-categories-and-codes), by test card and by test bank account, and each
 * test number passes the service's own checks, so that its outcome is the processor's answer.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DECLINE_CODES } from '#contract/declines';
import { assertBankAccount, assertCardNumber, cardTypeOf } from '#domain/cards';
import { declineOf } from '#domain/declines';
import type { NumberedAccount, TokenizeRequest } from '#processor/processor';
import { SANDBOX_BANK_ACCOUNTS, SANDBOX_CARDS, SandboxProcessor, sandboxProfile } from '#processor/sandbox';

const ddbMock = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
);
const sandbox = new SandboxProcessor(db, 't', { periodSeconds: 3600, offsetSeconds: 1800 });
const ROUTING = '021000021';

beforeEach(() => {
  ddbMock.reset();
  ddbMock.on(PutCommand).resolves({});
});

let keys = 0;
async function saleWith(method: TokenizeRequest, amountCents = 1999) {
  const { token } = await sandbox.tokenize(method);
  const idempotencyKey = `d${++keys}`;
  return sandbox.sale({
    keyFirstUsedAt: new Date().toISOString(),
    idempotencyKey,
    merchantId: '32350000001',
    token,
    amountCents,
    allowPartial: false,
  });
}

/** The merchant and payor a test method is vaulted for (the sandbox keeps no vault apart). */
const owner = { merchantId: '32350000001', payorId: 'payor-1' };
const card = (number: string): TokenizeRequest & NumberedAccount => ({
  ...owner,
  kind: 'card',
  number,
  expiryMonth: 12,
  expiryYear: 2030,
});
const bank = (accountNumber: string): TokenizeRequest & NumberedAccount => ({
  ...owner,
  kind: 'bank',
  routingNumber: ROUTING,
  accountNumber,
  accountType: 'CHECKING',
});

describe('test cards for every named decline', () => {
  it.each([
    ['4000000000000044', '04', 'Pick up card', '1'],
    ['4000000000000135', '13', 'Invalid amount', '1'],
    ['4000000000000572', '57', 'Transaction not permitted', '1'],
    ['4000000000003113', '1A', 'Cardholder authentication required', '1'],
    ['4000000000000804', 'R0', 'Payment authorization revoked', '1'],
    ['4000000000000622', '62', 'Restricted card', '1'],
    ['4000000000000143', '14', 'Invalid card number', '1'],
    ['4000000000000200', 'R2', 'Account closed', '1'],
    ['4000000000000788', '78', 'Card not activated', '1'],
    ['4000000000000960', '96', 'Communication error', '2'],
  ])('%p declines with %p (%s), category %p', async (number, code, message, category) => {
    const result = await saleWith(card(number));
    expect(result).toMatchObject({
      approved: false,
      responseCode: code,
      responseMessage: message,
      approvedCents: 0,
    });
    expect(result).not.toHaveProperty('authCode');
    expect(declineOf(result.responseCode).category).toBe(category);
  });

  it.each(Object.keys(SANDBOX_CARDS))('%p passes the service card checks (Luhn, its brand)', (number) => {
    expect(() => assertCardNumber(number, cardTypeOf(number)!)).not.toThrow();
  });

  it('every processor decline code of the table has a test card', () => {
    const processorCodes = Object.keys(DECLINE_CODES).filter((code) => !['19', 'PM'].includes(code));
    const covered = new Set(Object.values(SANDBOX_CARDS));
    expect(processorCodes.filter((code) => !covered.has(code))).toEqual([]);
  });
});

describe('test bank accounts (CHECKING)', () => {
  it.each([
    ['9900000001', '51', 'Insufficient funds', '2'],
    ['9900000002', 'R2', 'Account closed', '1'],
  ])('%p declines with %p (%s), category %p', async (accountNumber, code, message, category) => {
    const result = await saleWith(bank(accountNumber));
    expect(result).toMatchObject({
      approved: false,
      responseCode: code,
      responseMessage: message,
      approvedCents: 0,
    });
    expect(declineOf(result.responseCode).category).toBe(category);
  });

  it.each(Object.keys(SANDBOX_BANK_ACCOUNTS))(
    '%p passes the service bank-account checks',
    (accountNumber) => {
      expect(() => assertBankAccount(ROUTING, accountNumber)).not.toThrow();
    },
  );

  it('any other account approves in full', async () => {
    expect(await saleWith(bank('000123456789'), 123456)).toMatchObject({
      approved: true,
      responseCode: '00',
      approvedCents: 123456,
    });
  });

  it('the token carries the profile, never the account or routing number', async () => {
    expect(sandboxProfile(bank('9900000002'))).toBe('R2');
    const { token } = await sandbox.tokenize(bank('9900000001'));
    expect(token).toMatch(/^sbx\.51\.[0-9a-f]{24}$/);
    expect(token).not.toContain('9900000001');
    expect(token).not.toContain(ROUTING);
  });
});

describe('retry test cards (DESIGN section 5)', () => {
  it('5100000000000412 declines 51 (category 2) with Mastercard merchant advice code 03', async () => {
    const result = await saleWith(card('5100000000000412'));
    expect(result).toMatchObject({ approved: false, responseCode: '51', merchantAdviceCode: '03' });
    expect(declineOf(result.responseCode).category).toBe('2');
  });

  it('4000000000000341: the first sale on a saved method declines 51, a repeat of its key still does, later sales approve', async () => {
    // The token's first-sale mark: taken by the first key, kept for it.
    const marks = new Map<string, string>();
    ddbMock
      .on(PutCommand)
      .callsFake((input: { Item: Record<string, string>; ConditionExpression?: string }) => {
        const { pk, idempotencyKey } = input.Item;
        if (!pk!.startsWith('SANDBOX#FIRST#')) return {};
        const holder = marks.get(pk!);
        if (holder !== undefined && holder !== idempotencyKey)
          throw Object.assign(new Error('condition'), { name: 'ConditionalCheckFailedException' });
        marks.set(pk!, idempotencyKey!);
        return {};
      });
    const { token } = await sandbox.tokenize(card('4000000000000341'));
    expect(token).toMatch(/^sbx\.r51\./);
    const sale = (idempotencyKey: string) =>
      sandbox.sale({
        keyFirstUsedAt: new Date().toISOString(),
        idempotencyKey,
        merchantId: '32350000001',
        token,
        amountCents: 1000,
        allowPartial: false,
      });
    expect(await sale('payment:p1')).toMatchObject({ approved: false, responseCode: '51' });
    expect(await sale('payment:p1:2')).toMatchObject({
      approved: true,
      responseCode: '00',
      approvedCents: 1000,
    });
    expect(await sale('sale:t3')).toMatchObject({ approved: true });
    // Another saved method with the same number is another token: its first sale declines too.
    const other = await sandbox.tokenize(card('4000000000000341'));
    expect(
      await sandbox.sale({
        keyFirstUsedAt: new Date().toISOString(),
        idempotencyKey: 'sale:t4',
        merchantId: '32350000001',
        token: other.token,
        amountCents: 1000,
        allowPartial: false,
      }),
    ).toMatchObject({ approved: false, responseCode: '51' });
  });

  it('a fingerprint names the card or account, the same for every method, and holds no number', async () => {
    const a = await sandbox.tokenize(card('4111111111111111'));
    const b = await sandbox.tokenize(card('4111111111111111'));
    const c = await sandbox.tokenize(card('5555555555554444'));
    expect(a.fingerprint).toMatch(/^fp_[A-Za-z0-9_-]{32}$/);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.token).not.toBe(b.token);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    expect(a.fingerprint).not.toContain('1111');
    const bankPrint = (await sandbox.tokenize(bank('000123456789'))).fingerprint;
    expect(bankPrint).not.toBe(a.fingerprint);
    expect(bankPrint).toBe((await sandbox.tokenize(bank('000123456789'))).fingerprint);
  });
});
