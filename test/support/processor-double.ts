/** A processor for the integration tier: the real sandbox (its ledger in the test table) with faults injected. */
import {
  ProcessorUnavailableError,
  type PaymentProcessor,
  type ReversalRequest,
  type ReversalResult,
  type SaleRequest,
  type SaleResult,
  type TokenizeRequest,
  type UnansweredRequest,
  type Vaulted,
} from '#processor/processor';
import type { SandboxProcessor } from '#processor/sandbox';

/** What to do with a call: pass it on, or fail it before or after the sandbox saw it. */
type Fault = 'none' | 'unavailable-before' | 'unavailable-after' | 'crash-after' | 'decline';

export class FaultyProcessor implements PaymentProcessor {
  /** Per idempotency key: faults to apply to the next calls, consumed one per call. */
  private readonly faults = new Map<string, Fault[]>();
  /** Faults for every refund call (not consumed). */
  refundFault: Fault = 'none';
  /** Fault for every timeout reversal (not consumed; only the `unavailable-*` faults apply). */
  reverseFault: Fault = 'none';
  /** Every call that reached this wrapper, by kind and key. */
  readonly calls: { kind: string; key: string }[] = [];
  /** The sale and timeout-reversal requests as the core made them. */
  readonly requests: (SaleRequest | UnansweredRequest)[] = [];

  /** As the sandbox; false stands for a processor that cannot cancel a submitted debit (Stripe). */
  voidsBankDebits = true;
  /** As the sandbox: a void takes the sale out of its batch. */
  readonly voidIsRefund = false;

  constructor(private readonly inner: SandboxProcessor) {}

  /** The next `faults.length` calls with this key fail as listed ('none' passes one through). */
  failNext(key: string, ...faults: Fault[]): void {
    this.faults.set(key, [...(this.faults.get(key) ?? []), ...faults]);
  }

  /** Every call with this key fails with `fault` (until `clear`). */
  failAlways(key: string, fault: Fault): void {
    this.faults.set(key, Array<Fault>(1000).fill(fault));
  }

  clear(): void {
    this.faults.clear();
    this.refundFault = 'none';
    this.reverseFault = 'none';
    this.voidsBankDebits = true;
    this.calls.length = 0;
    this.requests.length = 0;
  }

  private next(key: string): Fault {
    const queue = this.faults.get(key);
    return queue?.shift() ?? 'none';
  }

  private async apply<T>(fault: Fault, call: () => Promise<T>, declined: () => T): Promise<T> {
    if (fault === 'unavailable-before') throw new ProcessorUnavailableError('processor did not answer');
    if (fault === 'decline') return declined();
    const result = await call();
    if (fault === 'unavailable-after') throw new ProcessorUnavailableError('the answer was lost');
    if (fault === 'crash-after') throw new Error('simulated crash after the processor call');
    return result;
  }

  tokenize(request: TokenizeRequest): Promise<Vaulted> {
    return this.inner.tokenize(request);
  }

  settlementTime(processedAt: string): string {
    return this.inner.settlementTime(processedAt);
  }

  sale(request: SaleRequest): Promise<SaleResult> {
    this.calls.push({ kind: 'SALE', key: request.idempotencyKey });
    this.requests.push(request);
    return this.apply(
      this.next(request.idempotencyKey),
      () => this.inner.sale(request),
      () => ({
        approved: false,
        processorTransactionId: 'declined',
        responseCode: '05',
        responseMessage: 'Do not honor',
        approvedCents: 0,
        processedAt: new Date().toISOString(),
      }),
    );
  }

  void(request: ReversalRequest): Promise<ReversalResult> {
    this.calls.push({ kind: 'VOID', key: request.idempotencyKey });
    return this.apply(this.next(request.idempotencyKey), () => this.inner.void(request), reversalDeclined);
  }

  refund(request: ReversalRequest): Promise<ReversalResult> {
    this.calls.push({ kind: 'REFUND', key: request.idempotencyKey });
    const fault = this.refundFault !== 'none' ? this.refundFault : this.next(request.idempotencyKey);
    return this.apply(fault, () => this.inner.refund(request), reversalDeclined);
  }

  listActivity(since: string, until?: string): ReturnType<PaymentProcessor['listActivity']> {
    return this.inner.listActivity(since, until);
  }

  accountUpdates(since: string, until?: string): ReturnType<PaymentProcessor['accountUpdates']> {
    return this.inner.accountUpdates(since, until);
  }

  /** Passed on to the sandbox (which overwrites its ledger entry of the key with a reversed 96). */
  reverseUnanswered(request: UnansweredRequest): Promise<void> {
    this.calls.push({ kind: 'REVERSE', key: request.idempotencyKey });
    this.requests.push(request);
    const fault = this.reverseFault === 'decline' ? 'none' : this.reverseFault;
    return this.apply(
      fault,
      () => this.inner.reverseUnanswered(request),
      () => undefined,
    );
  }
}

const reversalDeclined = (): ReversalResult => ({
  approved: false,
  processorTransactionId: 'declined',
  responseCode: '05',
  responseMessage: 'Refund declined',
  processedAt: new Date().toISOString(),
});
