/** Turns a processor's response code into the decline fields of a transaction. */
import { DECLINE_CATEGORY_DESCRIPTIONS, DECLINE_CODES, type DeclineCategory } from '#contract/declines';

export { DECLINE_CATEGORY_DESCRIPTIONS, DECLINE_CODES };

export function declineOf(code: string): { message: string; category: DeclineCategory; description: string } {
  const known = DECLINE_CODES[code] ?? { message: 'Declined', category: '1' as const };
  return { ...known, description: DECLINE_CATEGORY_DESCRIPTIONS[known.category] };
}
