/**
 * Issue 12, item 6: a group whose payments use every test card and test bank account of docs/integrating.md's
 * "Sandbox processor" tables gets, per payment, the documented responseCode and declineCategory.
 * The rows are read from that guide itself, so the table and the sandbox cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPayor } from '#support/fixtures/e2e-resources';
import { cardInput, checkingInput } from '#support/fixtures/inputs';
import { createGroup, payments, trigger, waitForStatus, type Json } from '#support/processing';
import { cardTypeOf } from '#domain/cards';

interface Row {
  numbers: string[];
  codes: string[];
  categories: string[];
}

/** The rows of the guide's table whose header starts with `header`: numbers, codes, categories. */
function tableRows(header: string): Row[] {
  const guide = readFileSync(resolve(__dirname, '..', '..', 'docs', 'integrating.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Sandbox processor'));
  const lines = section.slice(section.indexOf(`| ${header}`)).split('\n');
  const rows: Row[] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break;
    const [numbers, , codes, categories] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows.push({
      numbers: numbers!.split(/,\s*/),
      codes: codes!.split(/\s*\/\s*/),
      categories: categories!.split(/\s*\/\s*/).map((c) => (c === '–' ? '' : c)),
    });
  }
  return rows;
}

interface Expected {
  profileId: string;
  amount: number;
  allowPartial: boolean;
  code: string;
  category: string;
}

async function profileOf(method: Record<string, unknown>): Promise<string> {
  const payor = await createPayor({ paymentMethod: method });
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

test('every test card and test bank account gets its documented code and category in a group', async () => {
  const cards = tableRows('card number');
  const banks = tableRows('CHECKING account number');
  expect(cards.length).toBeGreaterThanOrEqual(15);
  expect(banks.length).toBe(2);

  const expected: Expected[] = [];
  for (const row of cards) {
    for (const cardNumber of row.numbers) {
      const accountType = cardTypeOf(cardNumber);
      const profileId = await profileOf(cardInput({ cardNumber, accountType }));
      // A two-outcome row (the partial card): 60.00 with allowPartial, then 70.00 without it.
      row.codes.forEach((code, i) =>
        expected.push({
          profileId,
          amount: 60 + 10 * i,
          allowPartial: i === 0 && row.codes.length > 1,
          code,
          category: row.categories[i] ?? '',
        }),
      );
    }
  }
  for (const row of banks) {
    const profileId = await profileOf(checkingInput({ accountNumber: row.numbers[0] }));
    expected.push({
      profileId,
      amount: 60,
      allowPartial: false,
      code: row.codes[0]!,
      category: row.categories[0]!,
    });
  }

  const group = await createGroup({
    allowPartial: false,
    payments: expected.map((e, i) => ({
      profileId: e.profileId,
      amount: e.amount,
      allowPartial: e.allowPartial,
      orderId: `row-${i}`,
    })),
  });
  expect((await trigger(group.paymentGroupId)).status).toBe(200);
  await waitForStatus(group.paymentGroupId, 'processed', 30_000);

  const byOrder = new Map((await payments(group.paymentGroupId)).map((p: Json) => [p.orderId, p]));
  const got = expected.map((_, i) => {
    const auth = byOrder.get(`row-${i}`)?.authResponse as Json | undefined;
    return { code: auth?.responseCode, category: auth?.declineCategory ?? '' };
  });
  expect(got).toEqual(expected.map((e) => ({ code: e.code, category: e.category })));
});
