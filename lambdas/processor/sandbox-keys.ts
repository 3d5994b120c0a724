/**
 * The sandbox processor's own items in the service table: it stands in for an acquirer, whose
 * ledger is its own, so its keys are made here, apart from the service's (store/keys.ts), under
 * `SANDBOX#` partitions that no service item uses.
 */
import { dayIndexEntry } from '#store/day-index';

/** A ledger entry's call kind: one entry per kind and processor key. */
export type LedgerKind = 'SALE' | 'VOID' | 'REFUND';

/** The sandbox's day-indexed kinds (store/day-index.ts): its ledger, its account updates, its notices. */
export const LEDGER_DAYS = 'SANDBOX';
export const ACCOUNT_UPDATE_DAYS = 'SANDBOXAU';
export const NOTICE_DAYS = 'SANDBOXN';

export const sandboxKeys = {
  /** The ledger: one item per call kind and idempotency key. */
  ledger: (kind: LedgerKind, idempotencyKey: string) => ({
    pk: `SANDBOX#${kind}#${idempotencyKey}`,
    sk: 'LEDGER',
  }),
  /** A ledger entry on the day index, from which the activity report is read. */
  ledgerDay: (kind: LedgerKind, idempotencyKey: string, at: string) =>
    dayIndexEntry(LEDGER_DAYS, at, `${kind}#${idempotencyKey}`),
  /** The mark of the first sale on a saved method's token (the recovering test card). */
  firstSale: (token: string) => ({ pk: `SANDBOX#FIRST#${token}`, sk: 'LEDGER' }),
  /** The account update recorded for a vaulted test card, and its entry on its own day index. */
  accountUpdate: (token: string) => ({ pk: `SANDBOX#AU#${token}`, sk: 'UPDATE' }),
  accountUpdateDay: (updateId: string, at: string) => dayIndexEntry(ACCOUNT_UPDATE_DAYS, at, updateId),
  /** A merchant's planned notice by its due time, and the partition of the merchant's notices. */
  pendingNotice: (merchantId: string, dueAt: string, noticeId: string) => ({
    pk: `SANDBOX#NOTICES#${merchantId}`,
    sk: `DUE#${dueAt}#${noticeId}`,
  }),
  pendingNotices: (merchantId: string) => `SANDBOX#NOTICES#${merchantId}`,
  /** The mark of a voided (or reversed) charge: its planned notices are never sent (sandbox-notices.ts). */
  voided: (processorTransactionId: string) => ({
    pk: `SANDBOX#VOIDED#${processorTransactionId}`,
    sk: 'LEDGER',
  }),
  noticeDay: (noticeId: string, at: string) => dayIndexEntry(NOTICE_DAYS, at, noticeId),
};
