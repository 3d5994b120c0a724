/**
 * Defect: a full card number is not found when a UUID-shaped run of text touches it
 * (lambdas/shared/card-number.ts `scan`). To let ids pass, the detector first blanks every match
 * of an unanchored UUID pattern (8-4-4-4-12 hexadecimal digits); a card number's last eight
 * digits followed by `-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, or its first twelve preceded by
 * `xxxxxxxx-xxxx-xxxx-xxxx-`, match that pattern, so the card number written whole (no separator
 * inside it) is blanked away and never seen. The text holds no UUID: `4111111111111111-...` is
 * 16 digits glued together ("digits glued to digits are one number"), not an id of 8.
 *
 * DESIGN ("A card number in free text is a Luhn-valid 13-19 digit run that starts with a card
 * brand's prefix") and docs/decisions.md "Card numbers in free text" (every free-text value
 * refuses one, 400 naming the field, nothing written; refusals and logs redact them): the service
 * stores and returns such an orderId, and a path id holding one is echoed in the 400 and logged.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { reloadConfigForTests } from '#shared/config';
import { logger } from '#shared/logger';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { apiContext, proxyEvent } from '#support/proxy-event';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

const MID = '32350000031';
const CLIENT = 'card-uuid-client';
const PAN = '4111111111111111';
/** The card number whole, then a dash and four hexadecimal groups (4-4-4-12): no UUID. */
const GLUED_BEFORE = `${PAN}-2026-1206-0001-000000000042`;
/** Four hexadecimal groups (8-4-4-4), a dash, then the card number whole. */
const GLUED_AFTER = `deadbeef-2026-1206-0001-${PAN}`;

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let table: TestTable;
let createGroup: Handler;
let getGroup: Handler;
let profileId: string;

const context = apiContext;

const apiEvent = (
  method: string,
  resource: string,
  pathParameters: Record<string, string>,
  body?: unknown,
): APIGatewayProxyEvent => proxyEvent({ method, resource, pathParameters, body, clientId: CLIENT });

/** The records the logger prints while `run` runs, as text. */
async function logged<T>(run: () => Promise<T>): Promise<{ result: T; logs: string }> {
  const sink = (logger as unknown as { console: Console }).console;
  const lines: string[] = [];
  const spies = (['debug', 'info', 'warn', 'error'] as const).map((m) =>
    jest.spyOn(sink, m).mockImplementation((...args: unknown[]) => void lines.push(String(args[0]))),
  );
  try {
    return { result: await run(), logs: lines.join('\n') };
  } finally {
    spies.forEach((s) => s.mockRestore());
  }
}

const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  ({ handler: createGroup } = (await import('#lambdas/groups/create-group')) as unknown as {
    handler: Handler;
  });
  ({ handler: getGroup } = (await import('#lambdas/groups/get-group')) as unknown as { handler: Handler });
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register({ merchantId: MID, name: 'Card detector test' });
  await registry.grant(CLIENT, MID, 'test');
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
});
afterAll(() => table.drop());

test.each([
  ['alone (the control: refused today)', `Qty 2 ${PAN}`],
  ['followed by 4-4-4-12 hexadecimal groups', GLUED_BEFORE],
  ['preceded by 8-4-4-4 hexadecimal groups', GLUED_AFTER],
])(
  'an orderId holding a whole card number %s is refused, 400 naming it (defect: stored and returned)',
  async (_how, orderId) => {
    const body = {
      servicePayId: MID,
      scheduleDate: day(3),
      scheduleHour: 9,
      locationId: 1,
      payments: [{ profileId, amount: 10, orderId }],
    };
    const response = await createGroup(
      apiEvent('POST', '/rest/merchants/{MID}/groups', { MID }, body),
      context,
    );
    // As for `Qty 2 4111 1111 1111 1111 12/30`: 400 naming the field, nothing written.
    expect({ status: response.statusCode, holdsCardNumber: response.body.includes(PAN) }).toEqual({
      status: 400,
      holdsCardNumber: false,
    });
    expect((JSON.parse(response.body) as { message: string }).message).toMatch(
      /^payments\[0\]\.orderId must not contain a card number/,
    );
  },
);

test.each([
  ['alone (the control: redacted today)', PAN],
  ['before 4-4-4-12 hexadecimal groups', GLUED_BEFORE],
])(
  'a path id holding a whole card number %s is redacted in the 400 and the log (defect: echoed and logged)',
  async (_how, id) => {
    const { result, logs } = await logged(() =>
      getGroup(apiEvent('GET', '/rest/merchants/{MID}/groups/{GroupID}', { MID, GroupID: id }), context),
    );
    expect(result.statusCode).toBe(400);
    // The refusal names the parameter and shows `[card number]` for the number (as it does for
    // `4111111111111111` alone), and no log record holds it.
    expect({ answerHoldsIt: result.body.includes(PAN), logsHoldIt: logs.includes(PAN) }).toEqual({
      answerHoldsIt: false,
      logsHoldIt: false,
    });
  },
);
