/**
 * The service's settlement cut-offs, kept for every processor: a sale is voided before its
 * cut-off and refunded after it (docs/product.md "Void or refund"), whoever processes it.
 */
export interface SettlementSchedule {
  /** Seconds between settlement cut-offs. */
  periodSeconds: number;
  /** Offset of the cut-offs from the epoch (1800 with a 3600 period: every hour at :30). */
  offsetSeconds: number;
}

/** The first cut-off strictly after `processedAt`. */
export function nextCutoff(processedAt: string, schedule: SettlementSchedule): string {
  const t = Math.floor(Date.parse(processedAt) / 1000);
  const { periodSeconds: p, offsetSeconds: o } = schedule;
  const next = Math.floor((t - o) / p) * p + o + p;
  return new Date(next * 1000).toISOString();
}
