/**
 * Defects of issue 9 on the functions' side, fixed later by another change. The fuzz properties
 * fail on them; a violation is excused only when its property is one the entry names AND the
 * request matches the entry's pattern, and the suite prints how many each entry excused. Remove an
 * entry with its fix: the suite then holds the fix to it.
 */
import type { FuzzCase } from './fuzz-cases';
import { PROTOTYPE_NAMES } from './fuzz-cases';

export type Property = 'no 5xx' | 'error body' | 'refused request changes nothing' | 'must refuse';

export interface KnownDefect {
  /** The defect, as issue 9 names it. */
  defect: string;
  /** The request pattern, in words (printed with the count). */
  pattern: string;
  properties: readonly Property[];
  matches(c: FuzzCase, reason?: string): boolean;
}

const hasPrototypeKey = (value: unknown, under: readonly string[]): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([k, v]) =>
      (under.includes(k) &&
        typeof v === 'object' &&
        v !== null &&
        Object.keys(v).some((name) => (PROTOTYPE_NAMES as readonly string[]).includes(name))) ||
      hasPrototypeKey(v, under),
  );
};

const LIST_OPERATIONS = new Set(['ListGroups', 'ListPendingGroups']);
const queryNumber = (c: FuzzCase, name: string) => {
  const found = [...c.query].reverse().find(([n]) => n === name);
  return found && /^\d+$/.test(found[1]) ? Number(found[1]) : undefined;
};

export const KNOWN_DEFECTS: readonly KnownDefect[] = [
  {
    defect: 'prototype keys in customAttributes/customerData give 500 (and partial batch writes)',
    pattern: 'a body with an Object.prototype name as a key of customAttributes or customerData',
    properties: ['no 5xx', 'refused request changes nothing'],
    matches: (c) => hasPrototypeKey(c.value, ['customAttributes', 'customerData']),
  },
  {
    defect: 'huge page numbers give 500 on the group lists',
    pattern: 'ListGroups/ListPendingGroups with pageNumber × pageSize (default 25) past 2^31−1',
    properties: ['no 5xx'],
    matches: (c) => {
      const page = queryNumber(c, 'pageNumber');
      return (
        LIST_OPERATIONS.has(c.operationId) &&
        page !== undefined &&
        page * (queryNumber(c, 'pageSize') ?? 25) > 2 ** 31 - 1
      );
    },
  },
  {
    defect: 'CR/LF and other control characters accepted in free text',
    pattern: 'an orderId with control characters, answered 2xx',
    properties: ['must refuse'],
    matches: (_c, reason) => reason === 'control characters in free text',
  },
  {
    defect: 'unknown query parameters ignored on non-list routes',
    pattern: 'a query name the operation does not declare, on an operation other than the group lists',
    properties: ['must refuse'],
    matches: (c, reason) => reason === 'an unknown query parameter' && !LIST_OPERATIONS.has(c.operationId),
  },
  {
    defect: 'one rule for decimals (0.30000000000000004 accepted as 0.30)',
    pattern: 'an amount with more than 2 decimals that is within 1e-12 of a whole number of cents',
    properties: ['must refuse'],
    matches: (c, reason) => {
      const amount = (c.value as { amount?: unknown } | undefined)?.amount;
      return (
        reason === 'an amount with more than 2 decimals' &&
        typeof amount === 'number' &&
        Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-9
      );
    },
  },
];
