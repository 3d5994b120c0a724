/**
 * Local-only fault injection, for the tests a real deployment cannot run on demand:
 *
 *   POST /__local/faults {"crashAfterSale": [paymentId, ...], "failCharges": [paymentId, ...],
 *     "sesFailures": N,
 *     "sesRefusals": N, "sesRateLimit": N,
 *     "crashAfterApproval": [{"profileId": ..., "amount": 12.34}, ...], "crashMethodMove": [methodId, ...],
 *     "lostRecordResponse": [{"profileId": ..., "amount": 12.34}, ...],
 *     "crashBeforeVoid": [transactionId, ...], "refuseVoid": [transactionId, ...]}
 *
 * - crashAfterSale: the next processor sale of each scheduled payment succeeds at the processor
 *   and then crashes before the service records the answer (what a retry must survive without a
 *   second charge);
 * - failCharges: every processor sale of each scheduled payment fails before the processor is asked
 *   (an error that is not the processor's silence), until the runtime stops: the batch's retries
 *   run out and FailBatch answers the payment Failed (what a report's `failed` count needs);
 * - crashMethodMove: the next deletion with `replaceWith` of each saved method dies after its first
 *   batch of moved payments (what the deletion's record and the sweeper must survive);
 * - crashAfterApproval: the same for the next API sale of this profile and amount (the API's sale
 *   has no id the client knows beforehand; the processor request's token names the method);
 * - lostRecordResponse: the next write that settles a sale of this profile and amount succeeds,
 *   and its answer is lost (the caller sees an error);
 * - crashBeforeVoid: the next void of each sale crashes after the void was reserved on the sale
 *   and before the processor is asked;
 * - refuseVoid: the processor refuses the next void of each sale (a definite answer);
 * - sesFailures: the next N e-mail sends fail as a throttled SES would (N large: SES down);
 * - sesRefusals: SES refuses the next N sends (MessageRejected: an attempt of the e-mail);
 * - sesRateLimit: SES accepts at most N sends in any one second and throttles the rest, as SES
 *   does past the account's maximum send rate ("Maximum sending rate exceeded"); 0: no limit.
 *   Not spent: it stays until set again. The answer counts the sends it throttled (sesThrottled).
 *
 * Each fault but failCharges and sesRateLimit is spent by the call it hits. The wrappers are installed around the configured
 * processor, mailer and transaction store through their test hooks; nothing of this exists in
 * lambdas/ or in the cloud.
 */
import type { SaleRequest as ProcessorSale } from '../../lambdas/processor/processor';
import type { LocalRoute } from './http-server';

/** Enough to keep SES "down" for any test; a bound so that 1e308 is refused, not taken as N. */
const MAX_SES_FAILURES = 1_000_000;

/** A sale named by what its request carried: the profile and the amount (dollars, as sent). */
interface SaleMatch {
  profileId: string;
  amount: number;
}

/** One-shot sale faults, each for a profile (any case) and an amount in cents. */
class SaleFaults {
  private readonly pending: { profileId: string; cents: number }[] = [];

  constructor(private readonly toCents: (amount: number) => number) {}

  add(match: SaleMatch): void {
    this.pending.push({ profileId: match.profileId.toLowerCase(), cents: this.toCents(match.amount) });
  }

  /** True (and spent) when a fault waits for this amount and a profile `isIt` recognises. */
  async take(amountCents: number, isIt: (profileId: string) => boolean | Promise<boolean>): Promise<boolean> {
    for (const [i, fault] of this.pending.entries()) {
      if (fault.cents === amountCents && (await isIt(fault.profileId))) {
        this.pending.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  list(): string[] {
    return this.pending.map((f) => `${f.profileId} ${f.cents}`);
  }
}

const isSaleMatch = (value: unknown): value is SaleMatch => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { profileId, amount } = value as Record<string, unknown>;
  return (
    typeof profileId === 'string' &&
    profileId !== '' &&
    typeof amount === 'number' &&
    Number.isFinite(amount) &&
    amount > 0 &&
    Number.isSafeInteger(Math.round(amount * 100)) &&
    // At most two decimals, as the API takes it (toCents would throw on a third).
    Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6
  );
};

const isIdList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((id) => typeof id === 'string' && id !== '');

export async function installFaults(): Promise<LocalRoute> {
  const { useProcessor } = await import('../../lambdas/processor/index');
  const { paymentProcessor } = await import('../../lambdas/core/processor');
  const { emailSender, useMailer } = await import('../../lambdas/shared/mailer');
  const { transactionStore, useTransactionStore } = await import('../../lambdas/store/transactions');
  const { toCents } = await import('../../lambdas/domain/money');
  const { parseProfileId } = await import('../../lambdas/domain/payors');
  const { parseProcessorKey } = await import('../../lambdas/domain/processor-keys');
  const { methodStore } = await import('../../lambdas/store/methods');
  const { methodDeletionStore } = await import('../../lambdas/store/method-deletions');
  const processor = paymentProcessor();
  const mailer = emailSender();
  const transactions = transactionStore();
  const crashAfterSale = new Set<string>();
  const failCharges = new Set<string>();
  const crashMethodMove = new Set<string>();
  const crashAfterApproval = new SaleFaults(toCents);
  const lostRecordResponse = new SaleFaults(toCents);
  const crashBeforeVoid = new Set<string>();
  const refuseVoid = new Set<string>();
  let sesFailures = 0;
  let sesRefusals = 0;
  let sesRateLimit = 0;
  let sesThrottled = 0;
  /** When the sends of the last second were accepted (sesRateLimit). */
  let accepted: number[] = [];

  /** Whether an API sale's processor request charges this profile's saved method. */
  const chargesProfile = async (request: ProcessorSale, profileId: string): Promise<boolean> => {
    const { payorId, savedPaymentMethodId } = parseProfileId(profileId);
    const method = await methodStore().findMethod(payorId, savedPaymentMethodId, request.merchantId);
    return method?.processorToken === request.token;
  };
  /** The sale a void's key names. */
  const voidedTransactionId = (key: string) => {
    const named = parseProcessorKey(key);
    return named?.kind === 'void' ? named.transactionId.toLowerCase() : undefined;
  };
  /** The payment whose first charge a key is (a retry round's charge has a key of its own). */
  const chargedPaymentId = (key: string) => {
    const named = parseProcessorKey(key);
    return named?.kind === 'payment' && named.attempt === 1 ? named.paymentId.toLowerCase() : undefined;
  };

  useProcessor({
    voidsBankDebits: processor.voidsBankDebits,
    voidIsRefund: processor.voidIsRefund,
    tokenize: (r) => processor.tokenize(r),
    refund: (r) => processor.refund(r),
    reverseUnanswered: (r) => processor.reverseUnanswered(r),
    settlementTime: (t) => processor.settlementTime(t),
    listActivity: (since, until) => processor.listActivity(since, until),
    accountUpdates: (since, until) => processor.accountUpdates(since, until),
    ...(processor.settleNow && { settleNow: (r) => processor.settleNow!(r) }),
    ...(processor.listNotices && { listNotices: (r) => processor.listNotices!(r) }),
    ...(processor.noticesNow && { noticesNow: (r) => processor.noticesNow!(r) }),
    ...(processor.readWebhook && { readWebhook: (r) => processor.readWebhook!(r) }),
    async sale(request) {
      const paymentId = chargedPaymentId(request.idempotencyKey);
      if (paymentId !== undefined && failCharges.has(paymentId))
        throw new Error(`injected failure of every charge of payment ${paymentId}`);
      const result = await processor.sale(request);
      if (paymentId !== undefined && crashAfterSale.delete(paymentId))
        throw new Error(`injected crash after the processor charged payment ${paymentId}`);
      if (
        result.approved &&
        parseProcessorKey(request.idempotencyKey)?.kind === 'sale' &&
        (await crashAfterApproval.take(request.amountCents, (p) => chargesProfile(request, p)))
      )
        throw new Error(`injected crash after the processor approved ${request.idempotencyKey}`);
      return result;
    },
    async void(request) {
      const transactionId = voidedTransactionId(request.idempotencyKey);
      if (transactionId !== undefined && crashBeforeVoid.delete(transactionId))
        throw new Error(`injected crash after the void of ${transactionId} was reserved`);
      if (transactionId !== undefined && refuseVoid.delete(transactionId)) {
        return {
          approved: false,
          processorTransactionId: '',
          responseCode: '12',
          responseMessage: 'Void refused (injected)',
          processedAt: new Date().toISOString(),
        };
      }
      return processor.void(request);
    },
  });
  // Only settleSale is wrapped; every other method is the store's own (the prototype's).
  useTransactionStore(
    Object.assign(Object.create(transactions) as typeof transactions, {
      async settleSale(txn: Parameters<typeof transactions.settleSale>[0]) {
        const stored = await transactions.settleSale(txn);
        const ofSale = (profileId: string) => profileId === txn.profileId.toLowerCase();
        if (stored.status !== 'Pending' && (await lostRecordResponse.take(txn.amountCents, ofSale)))
          throw new Error(`injected loss of the answer to the record of sale ${txn.transactionId}`);
        return stored;
      },
    }),
  );
  // The container's deletion store is the one the handlers use: its movePayments is wrapped on it.
  const deletions = methodDeletionStore();
  const move = deletions.movePayments.bind(deletions);
  deletions.movePayments = async (record, payments, now) => {
    const moved = await move(record, payments, now);
    const methodId = record.methodIds[0]?.toLowerCase() ?? '';
    if (moved && crashMethodMove.delete(methodId))
      throw new Error(`injected crash after the first moves of saved method ${methodId}`);
    return moved;
  };
  useMailer({
    async send(to, email, messageId) {
      const throttled = () =>
        Object.assign(new Error('Maximum sending rate exceeded (injected)'), {
          name: 'TooManyRequestsException',
        });
      if (sesFailures > 0) {
        sesFailures--;
        throw throttled();
      }
      if (sesRefusals > 0) {
        sesRefusals--;
        throw Object.assign(new Error('Email address is not verified (injected refusal)'), {
          name: 'MessageRejected',
        });
      }
      if (sesRateLimit > 0) {
        const now = Date.now();
        accepted = accepted.filter((t) => t > now - 1000);
        if (accepted.length >= sesRateLimit) {
          sesThrottled++;
          throw throttled();
        }
        accepted.push(now);
      }
      return mailer.send(to, email, messageId);
    },
  });

  const refuse = (message: string) => ({ status: 400, body: { message, responseCode: 400 } });
  return async (_req, raw) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw || '{}');
    } catch {
      return refuse('body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return refuse('body must be a JSON object');
    const body = parsed as Record<string, unknown>;
    const ids = body.crashAfterSale ?? [];
    const failing = body.failCharges ?? [];
    const moveCrashes = body.crashMethodMove ?? [];
    const failures = body.sesFailures ?? 0;
    const refusals = body.sesRefusals ?? 0;
    const rateLimit = body.sesRateLimit ?? 0;
    const approvals = body.crashAfterApproval ?? [];
    const lostRecords = body.lostRecordResponse ?? [];
    const voidCrashes = body.crashBeforeVoid ?? [];
    const voidRefusals = body.refuseVoid ?? [];
    if (!isIdList(ids)) return refuse('crashAfterSale must be an array of paymentIds');
    if (!isIdList(failing)) return refuse('failCharges must be an array of paymentIds');
    if (!isIdList(moveCrashes)) return refuse('crashMethodMove must be an array of savedPaymentMethodIds');
    if (
      !Number.isSafeInteger(failures) ||
      (failures as number) < 0 ||
      (failures as number) > MAX_SES_FAILURES
    )
      return refuse(`sesFailures must be an integer from 0 to ${MAX_SES_FAILURES}`);
    for (const [name, n] of [
      ['sesRefusals', refusals],
      ['sesRateLimit', rateLimit],
    ] as const) {
      if (!Number.isSafeInteger(n) || (n as number) < 0 || (n as number) > MAX_SES_FAILURES)
        return refuse(`${name} must be an integer from 0 to ${MAX_SES_FAILURES}`);
    }
    for (const [name, list] of [
      ['crashAfterApproval', approvals],
      ['lostRecordResponse', lostRecords],
    ] as const) {
      if (!Array.isArray(list) || !list.every(isSaleMatch))
        return refuse(
          `${name} must be an array of {profileId, amount} (amount > 0, in dollars, at most two decimals)`,
        );
    }
    if (!isIdList(voidCrashes)) return refuse('crashBeforeVoid must be an array of transactionIds');
    if (!isIdList(voidRefusals)) return refuse('refuseVoid must be an array of transactionIds');

    for (const id of ids) crashAfterSale.add(id.toLowerCase());
    for (const id of failing) failCharges.add(id.toLowerCase());
    for (const id of moveCrashes) crashMethodMove.add(id.toLowerCase());
    for (const match of approvals as SaleMatch[]) crashAfterApproval.add(match);
    for (const match of lostRecords as SaleMatch[]) lostRecordResponse.add(match);
    for (const id of voidCrashes) crashBeforeVoid.add(id.toLowerCase());
    for (const id of voidRefusals) refuseVoid.add(id.toLowerCase());
    if (body.sesFailures !== undefined) sesFailures = failures as number;
    if (body.sesRefusals !== undefined) sesRefusals = refusals as number;
    if (body.sesRateLimit !== undefined) sesRateLimit = rateLimit as number;
    return {
      status: 200,
      body: {
        crashAfterSale: [...crashAfterSale],
        failCharges: [...failCharges],
        crashMethodMove: [...crashMethodMove],
        crashAfterApproval: crashAfterApproval.list(),
        lostRecordResponse: lostRecordResponse.list(),
        crashBeforeVoid: [...crashBeforeVoid],
        refuseVoid: [...refuseVoid],
        sesFailures,
        sesRefusals,
        sesRateLimit,
        sesThrottled,
      },
    };
  };
}
