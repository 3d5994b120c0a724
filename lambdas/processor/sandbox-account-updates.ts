/**
 * The sandbox's account updater (DESIGN section 5, "The card lifecycle"): vaulting one of the
 * test cards below records the update the card networks will report for its token, and
 * `accountUpdates` lists those recorded in a window, oldest first, as an acquirer's account
 * updater report does. The card charges as an ordinary approving card either way. Each update is
 * one item (`SANDBOX#AU#<token>`) on a day index of its own (GSI1 `SANDBOXAU#DAY#<yyyy-mm-dd>`),
 * apart from the ledger's activity report; its id is derived from the token, so listing again
 * gives the same ids. No number is kept: only the new card's masked form and fingerprint.
 */
import { createHash } from 'node:crypto';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { maskNumber } from '#domain/cards';
import { queryDays } from '#store/day-index';
import type { AccountUpdate, NumberedAccount } from './processor';
import { ACCOUNT_UPDATE_DAYS, sandboxKeys } from './sandbox-keys';
import { clock } from '#shared/clock';

type UpdateSpec =
  { kind: 'new_expiry' } | { kind: 'new_number'; number: string } | { kind: 'closed' | 'contact_cardholder' };

/** Test cards the account updater reports on (each also charges as an approving card). */
export const ACCOUNT_UPDATER_CARDS: Readonly<Record<string, UpdateSpec>> = {
  // A new expiry three years later (same month).
  '4000000000000440': { kind: 'new_expiry' },
  // Replaced by a new card 4000000000000465 (expiring three years after the old one).
  '4000000000000457': { kind: 'new_number', number: '4000000000000465' },
  '4000000000000473': { kind: 'closed' },
  '4000000000000481': { kind: 'contact_cardholder' },
};

/** How many years a renewed or replaced test card's expiry moves. */
const RENEWAL_YEARS = 3;

/**
 * Records the update for a newly vaulted test card (no-op for other numbers). `fingerprintOf`
 * gives the new card's fingerprint as the sandbox's tokenization would.
 */
export async function recordAccountUpdate(
  db: DynamoDBDocumentClient,
  tableName: string,
  request: NumberedAccount,
  token: string,
  fingerprintOf: (request: NumberedAccount) => string,
  at = clock.now().toISOString(),
): Promise<void> {
  if (request.kind !== 'card') return;
  const spec = ACCOUNT_UPDATER_CARDS[request.number];
  if (!spec) return;
  const updateId = `au_${createHash('sha256').update(token).digest('base64url').slice(0, 24)}`;
  const renewed = { expiryMonth: request.expiryMonth, expiryYear: request.expiryYear + RENEWAL_YEARS };
  let update: AccountUpdate;
  if (spec.kind === 'new_expiry') update = { updateId, token, at, kind: 'new_expiry', ...renewed };
  else if (spec.kind === 'new_number') {
    const replacement: NumberedAccount = { kind: 'card', number: spec.number, ...renewed };
    update = {
      updateId,
      token,
      at,
      kind: 'new_number',
      maskedAccountNumber: maskNumber(spec.number),
      fingerprint: fingerprintOf(replacement),
      ...renewed,
    };
  } else update = { updateId, token, at, kind: spec.kind };
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...sandboxKeys.accountUpdate(token),
        ...sandboxKeys.accountUpdateDay(updateId, at),
        entity: 'sandbox-account-update',
        update,
      },
    }),
  );
}

/** The recorded updates from `since` (inclusive) to `until` (exclusive), oldest first. */
export async function listAccountUpdates(
  db: DynamoDBDocumentClient,
  tableName: string,
  since: string,
  until: string,
): Promise<AccountUpdate[]> {
  const items = await queryDays(db, tableName, ACCOUNT_UPDATE_DAYS, { since, until });
  return items
    .map((item) => item.update as AccountUpdate)
    .filter((update) => update.at >= since && update.at < until);
}
