/**
 * IANA time zone names, checked against the zone data the runtime carries (Node.js's ICU, the data
 * luxon reads too): the check behind the schemas' `ianaTimeZone` keyword. Kept free of luxon, since
 * every function's validators load it.
 *
 * A name is only checked here, never rewritten: the runtime's zone data resolves a current name to
 * an older alias (`Asia/Kolkata` to `Asia/Calcutta`, `Europe/Kyiv` to `Europe/Kiev`), and the
 * caller's own spelling is the one kept and shown (docs/decisions.md "Series: the time rules").
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
