/**
 * The sandbox processor's ledger entries (sandbox.ts): the item an entry is and the line of the
 * activity report it gives.
 */
import type { ProcessorActivity, ReversalResult, SaleResult } from './processor';
import { sandboxKeys, type LedgerKind } from './sandbox-keys';

/** What a ledger entry keeps of its request besides the key: what the activity report shows. */
export interface LedgerRequest {
  merchantId?: string;
  amountCents?: number;
  originalProcessorTransactionId?: string;
}

/** A ledger item's attributes: its keys, its day-index entry, the request and the result. */
export function ledgerItem(
  kind: LedgerKind,
  key: string,
  request: LedgerRequest,
  result: object,
  at: string,
) {
  return {
    ...sandboxKeys.ledger(kind, key),
    ...sandboxKeys.ledgerDay(kind, key, at),
    entity: 'sandbox-ledger',
    kind,
    idempotencyKey: key,
    ...request,
    at,
    result,
  };
}

/** A ledger item as a line of the activity report. */
export function activityOf(item: Record<string, unknown>): ProcessorActivity {
  const kind = item.kind as LedgerKind;
  const result = item.result as SaleResult | ReversalResult;
  const amount = 'approvedCents' in result ? result.approvedCents : Number(item.amountCents ?? 0);
  return {
    kind: kind === 'SALE' ? 'sale' : kind === 'VOID' ? 'void' : 'refund',
    idempotencyKey: item.idempotencyKey as string,
    merchantId: item.merchantId as string,
    processorTransactionId: result.processorTransactionId,
    ...(item.originalProcessorTransactionId !== undefined && {
      originalProcessorTransactionId: item.originalProcessorTransactionId as string,
    }),
    approved: result.approved,
    amountCents: result.approved ? amount : 0,
    responseCode: result.responseCode,
    at: item.at as string,
  };
}
