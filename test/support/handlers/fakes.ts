/**
 * In-memory fakes of the group and payment stores for handler tests: the same interfaces and the
 * same refusals as the DynamoDB implementations (a group takes payment changes only while it is
 * pending, is this merchant's, has room and, with a notice, is still at the notice's slot; a
 * payment change holds only if the payment is as read). What DynamoDB is sent is asserted once,
 * by the store tests on DynamoDB Local (test/integration/group-store.test.ts).
 *
 * A test file wires them in by importing '#support/handlers/fake-stores' first.
 */
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import type { ServiceEvent } from '#domain/events';
import {
  groupEvent,
  type Group,
  type GroupFilter,
  type Payment,
  type VoidOrRefundSummary,
} from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import type { AuthResponse } from '#domain/processing';
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import type { GroupStore } from '#store/groups';
import type { Page } from '#store/paging';
import type { PaymentStore, Slot, WriteOutcome } from '#store/payments';

/** What the fakes hold: groups, payments by group, and the outbox items written with them. */
class MemoryTable {
  readonly groups = new Map<string, Group>();
  readonly payments = new Map<string, Map<string, Payment>>();
  readonly outbox: OutboxItem[] = [];
  /** Events written with the changes they announce. */
  readonly events: ServiceEvent[] = [];
  /** Outcomes forced on the next payment writes (a concurrent writer won), in order. */
  readonly interference: WriteOutcome[] = [];
  /** Errors the next payment writes throw (DynamoDB failed), in order. */
  readonly failures: unknown[] = [];
  /** Payment writes attempted (forced refusals and failures included). */
  paymentWrites = 0;
  /** Group reads (`getGroup`). */
  groupReads = 0;
  /** Group writes attempted (create, settings, delete). */
  groupWrites = 0;
  /** Run before the next group writes, in order: a concurrent change between read and write. */
  readonly beforeGroupWrite: (() => void)[] = [];
  /** Conditional group writes to refuse (changed and changed back under us), whatever the state. */
  groupRefusals = 0;

  paymentsOf(groupId: string): Map<string, Payment> {
    let found = this.payments.get(groupId);
    if (!found) this.payments.set(groupId, (found = new Map()));
    return found;
  }

  reset(): void {
    this.groups.clear();
    this.payments.clear();
    this.outbox.length = 0;
    this.events.length = 0;
    this.interference.length = 0;
    this.failures.length = 0;
    this.paymentWrites = 0;
    this.groupReads = 0;
    this.groupWrites = 0;
    this.beforeGroupWrite.length = 0;
    this.groupRefusals = 0;
  }

  /**
   * Counts a group write; throws a queued failure or runs a queued concurrent change. False when
   * a conditional write is to be refused regardless of the state.
   */
  groupWrite(): boolean {
    this.groupWrites++;
    if (this.failures.length > 0) throw this.failures.shift();
    this.beforeGroupWrite.shift()?.();
    if (this.groupRefusals === 0) return true;
    this.groupRefusals--;
    return false;
  }
}

const copy = <T>(value: T): T => structuredClone(value);

class FakeGroupStore implements GroupStore {
  constructor(private readonly table: MemoryTable) {}

  async getGroup(groupId: string): Promise<Group | undefined> {
    this.table.groupReads++;
    const group = this.table.groups.get(groupId);
    return group && copy(group);
  }

  async createGroup(
    group: Group,
    payments: Payment[],
    outbox: OutboxItem[] = [],
    event?: ServiceEvent,
  ): Promise<void> {
    this.table.groupWrite();
    if (this.table.groups.has(group.paymentGroupId)) throw new Error('group exists');
    this.table.groups.set(group.paymentGroupId, copy(group));
    for (const p of payments) this.table.paymentsOf(group.paymentGroupId).set(p.paymentId, copy(p));
    this.table.outbox.push(...copy(outbox));
    if (event) this.table.events.push(copy(event));
  }

  async putVoidOrRefundSummary(
    groupId: string,
    summary: VoidOrRefundSummary,
    expected: number | undefined,
  ): Promise<boolean> {
    const stored = this.table.groups.get(groupId);
    if (!this.table.groupWrite() || !stored || stored.voidOrRefundSummary?.generation !== expected)
      return false;
    this.table.groups.set(groupId, { ...stored, voidOrRefundSummary: copy(summary) });
    return true;
  }

  /** The fake's create is atomic: nothing is ever abandoned half-way. */
  async sweepAbandonedCreates(): Promise<string[]> {
    return [];
  }

  async discardCreate(): Promise<void> {}

  async updateSettings(previous: Group, next: Group, event: ServiceEvent): Promise<boolean> {
    const allowed = this.table.groupWrite();
    const stored = this.table.groups.get(next.paymentGroupId);
    if (!allowed || stored?.status !== 'pending' || stored.eventSeq !== previous.eventSeq) return false;
    const updated: Group = {
      ...stored,
      scheduleDate: next.scheduleDate,
      scheduleHour: next.scheduleHour,
      locationId: next.locationId,
      transactionInitiator: next.transactionInitiator,
      surchargeCompliance: next.surchargeCompliance,
      allowPartial: next.allowPartial,
      ...(next.retryPolicy !== undefined && { retryPolicy: next.retryPolicy }),
      lastUpdated: next.lastUpdated,
      eventSeq: event.sequence,
    };
    this.table.groups.set(next.paymentGroupId, updated);
    this.table.events.push(copy(event));
    return true;
  }

  async markDeleted(previous: Group, now: Date, event: ServiceEvent): Promise<boolean> {
    const allowed = this.table.groupWrite();
    const stored = this.table.groups.get(previous.paymentGroupId);
    if (!allowed || stored?.status !== 'pending' || stored.eventSeq !== previous.eventSeq) return false;
    this.table.groups.set(previous.paymentGroupId, {
      ...stored,
      status: 'deleted',
      lastUpdated: now.toISOString(),
      eventSeq: event.sequence,
    });
    this.table.events.push(copy(event));
    return true;
  }

  async announceVoidOrRefund(groupId: string, now: Date): Promise<void> {
    const stored = this.table.groups.get(groupId);
    if (!stored) return;
    const announced: Group = { ...stored, eventSeq: (stored.eventSeq ?? 0) + 1 };
    this.table.groups.set(groupId, announced);
    this.table.events.push(copy(groupEvent('group.void_or_refund_completed', announced, now)));
  }

  async listGroups(merchantId: string, filter: GroupFilter): Promise<Group[]> {
    return [...this.table.groups.values()]
      .filter(
        (g) =>
          g.merchantId === merchantId &&
          (filter.date === undefined || g.scheduleDate === filter.date) &&
          (filter.hour === undefined || g.scheduleHour === filter.hour) &&
          (filter.locationId === undefined || g.locationId === filter.locationId) &&
          (!filter.pendingOnly || g.status === 'pending' || g.status === 'processing'),
      )
      .map(copy);
  }

  async pageGroups(merchantId: string, filter: GroupFilter, page: Page) {
    const all = await this.listGroups(merchantId, filter);
    const start = (page.pageNumber - 1) * page.pageSize;
    return { items: all.slice(start, start + page.pageSize), total: all.length };
  }
}

class FakePaymentStore implements PaymentStore {
  constructor(private readonly table: MemoryTable) {}

  async getPayment(groupId: string, paymentId: string): Promise<Payment | undefined> {
    const payment = this.table.payments.get(groupId)?.get(paymentId);
    return payment && copy(payment);
  }

  async getPayments(groupId: string, paymentIds: readonly string[]): Promise<Payment[]> {
    const payments = this.table.paymentsOf(groupId);
    return [...new Set(paymentIds)].flatMap((id) => {
      const payment = payments.get(id);
      return payment ? [copy(payment)] : [];
    });
  }

  async listPayments(groupId: string): Promise<Payment[]> {
    return [...this.table.paymentsOf(groupId).values()]
      .sort((a, b) => (a.paymentId < b.paymentId ? -1 : 1))
      .map(copy);
  }

  async paymentsAfter(groupId: string, cursor: string | null, limit: number) {
    const all = await this.listPayments(groupId);
    const from = cursor === null ? 0 : all.findIndex((p) => p.paymentId === cursor) + 1;
    const payments = all.slice(from, from + limit);
    const last = payments[payments.length - 1];
    return { payments, cursor: from + limit < all.length && last ? last.paymentId : null };
  }

  async pagePayments(groupId: string, page: Page) {
    const all = await this.listPayments(groupId);
    const start = (page.pageNumber - 1) * page.pageSize;
    return { payments: all.slice(start, start + page.pageSize), total: all.length };
  }

  async paymentsAfterId(groupId: string, afterId: string | null, limit: number) {
    const all = await this.listPayments(groupId);
    return all.filter((p) => afterId === null || p.paymentId > afterId).slice(0, limit);
  }

  /** The group-side condition of every payment change. */
  private groupTakes(payment: Payment, countDelta: number, slot?: Slot): boolean {
    const group = this.table.groups.get(payment.paymentGroupId);
    return (
      group?.status === 'pending' &&
      group.merchantId === payment.merchantId &&
      (countDelta <= 0 || group.paymentCount < MAX_PAYMENTS_PER_GROUP) &&
      (!slot || (group.scheduleDate === slot.scheduleDate && group.scheduleHour === slot.scheduleHour))
    );
  }

  private moveTotals(groupId: string, countDelta: number, centsDelta: number, now: Date): void {
    const group = this.table.groups.get(groupId)!;
    group.paymentCount += countDelta;
    group.totalCents += centsDelta;
    group.lastUpdated = now.toISOString();
  }

  /** A forced failure or outcome (a concurrent writer), else the group's verdict, else the payment's. */
  private verdict(groupTakes: boolean, paymentAsRead: boolean): WriteOutcome {
    this.table.paymentWrites++;
    if (this.table.failures.length > 0) throw this.table.failures.shift();
    const forced = this.table.interference.shift();
    if (forced) return forced;
    if (!groupTakes) return 'group-not-editable';
    return paymentAsRead ? 'ok' : 'payment-changed';
  }

  async addPayment(payment: Payment, now: Date, outbox: OutboxItem[] = [], slot?: Slot) {
    const exists = this.table.paymentsOf(payment.paymentGroupId).has(payment.paymentId);
    const outcome = this.verdict(this.groupTakes(payment, 1, slot), !exists);
    if (outcome !== 'ok') return outcome;
    this.table.paymentsOf(payment.paymentGroupId).set(payment.paymentId, copy(payment));
    this.moveTotals(payment.paymentGroupId, 1, payment.amountCents, now);
    this.table.outbox.push(...copy(outbox));
    return outcome;
  }

  private asRead(previous: Payment): boolean {
    const stored = this.table.payments.get(previous.paymentGroupId)?.get(previous.paymentId);
    return (
      stored !== undefined &&
      !stored.deleted &&
      stored.amountCents === previous.amountCents &&
      stored.lastUpdated === previous.lastUpdated
    );
  }

  async replacePayment(previous: Payment, next: Payment, now: Date) {
    const outcome = this.verdict(this.groupTakes(next, 0), this.asRead(previous));
    if (outcome !== 'ok') return outcome;
    this.table.paymentsOf(next.paymentGroupId).set(next.paymentId, copy(next));
    this.moveTotals(next.paymentGroupId, 0, next.amountCents - previous.amountCents, now);
    return outcome;
  }

  async softDeletePayment(previous: Payment, now: Date) {
    const outcome = this.verdict(this.groupTakes(previous, -1), this.asRead(previous));
    if (outcome !== 'ok') return outcome;
    const stored = this.table.paymentsOf(previous.paymentGroupId).get(previous.paymentId)!;
    stored.deleted = true;
    stored.lastUpdated = now.toISOString();
    this.moveTotals(previous.paymentGroupId, -1, -previous.amountCents, now);
    return outcome;
  }

  async setAuthResponse(payment: Payment, authResponse: AuthResponse, now: Date) {
    const stored = this.table.payments.get(payment.paymentGroupId)?.get(payment.paymentId);
    if (!stored || stored.authResponse) return false;
    Object.assign(stored, { authResponse: copy(authResponse), lastUpdated: now.toISOString() });
    return true;
  }

  /** The handlers under test never record retries: the DynamoDB store's own tests cover these. */
  async recordRetryAnswer(): Promise<'ok' | 'changed'> {
    throw new Error('FakePaymentStore.recordRetryAnswer is not used by handler tests');
  }

  async cancelRetry(): Promise<'ok' | 'changed'> {
    throw new Error('FakePaymentStore.cancelRetry is not used by handler tests');
  }

  async deleteScheduledRetry(): Promise<WriteOutcome> {
    throw new Error('FakePaymentStore.deleteScheduledRetry is not used by handler tests');
  }

  async setReversals(payment: Payment, responses: VoidOrRefundResponse[], now: Date) {
    const stored = this.table.payments.get(payment.paymentGroupId)?.get(payment.paymentId);
    if (!stored || stored.lastUpdated !== payment.lastUpdated) return false;
    Object.assign(stored, { voidOrRefundResponses: copy(responses), lastUpdated: now.toISOString() });
    return true;
  }
}

/** The one table the mocked store modules share in a test file. */
export const memory = new MemoryTable();

/** A store module (`#store/groups` or `#store/payments`) whose container store is the fake. */
export function mockStoreModule(name: 'groups' | 'payments'): Record<string, unknown> {
  const actual = jest.requireActual<Record<string, unknown>>(`#store/${name}`);
  if (name === 'groups') {
    const store = new FakeGroupStore(memory);
    return { ...actual, groupStore: () => store };
  }
  const store = new FakePaymentStore(memory);
  return { ...actual, paymentStore: () => store };
}
