/**
 * Settlement timing in the e2e tests: what a test that voids, reads `settled` or settles by hand
 * needs so that a cut-off never falls in the middle of it.
 *
 * The e2e runtime's settlement cut-offs are 8 s apart, and no void is reserved within a hundredth
 * of that (0.08 s) of the sale's cut-off (`voidMarginSeconds`); past it the sale has settled. A sale
 * made at a random moment and voided by the next request is refused when it lands that close to a
 * cut-off: about one run in a hundred under CI's load (defect: "a void example's sale lands within
 * the void margin of its cut-off"). `saleBeforeCutoff` makes the sale again after the cut-off until
 * it has `VOID_LEAD_MS` before the next one; `earlyInSettlementPeriod` waits for a period's start.
 */
import { call, MID } from '#support/api';
import { sleep } from '#shared/clock';

/** What a sale answers that these helpers read. */
interface SaleAnswer {
  status: string;
  settlementTime: string;
}

/** The shared e2e runtimes' settlement period (test/support/e2e-global-setup.ts). */
export const E2E_SETTLEMENT_MS = 8_000;
/** Time a test keeps between its sale and the sale's cut-off: room for a void and its checks. */
export const VOID_LEAD_MS = 3000;
/** Cut-offs waited out at most: the second sale already lands just after one. */
const ATTEMPTS = 4;

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const realClock: Clock = { now: () => Date.now(), sleep };

/** Waits, if fewer than `minLeftMs` are left of the settlement period, for the next one's start. */
export async function earlyInSettlementPeriod(
  minLeftMs: number,
  periodMs = E2E_SETTLEMENT_MS,
  clock: Clock = realClock,
): Promise<void> {
  const left = periodMs - (clock.now() % periodMs);
  if (left < minLeftMs) await clock.sleep(left + 100);
}

/**
 * SANDBOX_SETTLEMENT_SECONDS for a runtime of its own whose test settles by hand (the test clock):
 * a day, whose cut-off (midnight UTC) is more than 10 minutes away, else a second less, whose
 * cut-offs fall hours from midnight. An hour's cut-off passed between a CLI file's charges and its
 * `spay settle` in about one run in a thousand, and `settle` found nothing left to settle.
 */
export function farSettlementSeconds(now = Date.now()): string {
  const day = 86_400;
  const untilMidnight = day - ((now / 1000) % day);
  return String(untilMidnight > 600 ? day : day - 1);
}

/** Waits until just after the sale's settlement cut-off. */
export async function pastCutoff(
  sale: { settlementTime?: unknown },
  clock: Clock = realClock,
): Promise<void> {
  await clock.sleep(Math.max(0, Date.parse(String(sale.settlementTime)) - clock.now()) + 200);
}

/**
 * An approved sale made by `makeSale` with at least `VOID_LEAD_MS` before its cut-off. A sale made
 * closer is left to settle and another made after the cut-off, a cent more (not a duplicate).
 */
export async function saleBeforeCutoff<T extends SaleAnswer>(
  makeSale: (amount: number) => Promise<T>,
  amount: number,
  clock: Clock = realClock,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const sale = await makeSale(amount);
    if (sale.status !== 'Approved') throw new Error(`the sale of ${amount} was ${sale.status}, not Approved`);
    if (Date.parse(sale.settlementTime) - clock.now() >= VOID_LEAD_MS) return sale;
    if (attempt === ATTEMPTS)
      throw new Error(`no sale with ${VOID_LEAD_MS} ms before its cut-off in ${ATTEMPTS}`);
    await pastCutoff(sale, clock);
    amount = Math.round(amount * 100 + 1) / 100;
  }
}

type Txn = SaleAnswer & { transactionId: string } & Record<string, any>;

/** An approved sale on the e2e runtime that a void made next can still reserve. */
export function unsettledSale(profileId: string, amount: number, merchantId = MID): Promise<Txn> {
  return saleBeforeCutoff(async (a) => {
    const res = await call<Txn>('POST', `/v1/rest/merchants/${merchantId}/transactions`, {
      profileId,
      amount: a,
    });
    if (res.status !== 201) throw new Error(`sale of ${a}: ${res.status} ${res.text}`);
    return res.body;
  }, amount);
}
