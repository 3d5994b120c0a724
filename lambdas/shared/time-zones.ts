/**
 * IANA time zone names, checked against the zone data the runtime carries (Node.js's ICU, the data
 * luxon reads too): the check behind the schemas' `ianaTimeZone` keyword. Kept free of luxon, since
 * every function's validators load it.
 */

/** True when `name` is a time zone the runtime knows (`America/New_York`; any letter case). */
export function isIanaTimeZone(name: unknown): boolean {
  if (typeof name !== 'string' || name === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone's canonical spelling (`america/new_york` → `America/New_York`); the name must be valid. */
export const canonicalTimeZone = (name: string): string =>
  new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
