/**
 * E-mail notifications over the whole pipeline (docs/product.md#e-mails): the payment-scheduled
 * notice at creation, the receipt after settlement, what the e-mails carry, and delivery through
 * the outbox under duplicate queue messages and SES faults (throttles and refusals).
 *
 * The runtime (and its SES store and fault switch) is shared with the other e2e files: every payor
 * gets its own address and only e-mails to this file's addresses are counted; the SES faults are
 * set in one describe that waits for its own outcome and resets the switch.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueuedMessage } from '#shared/outbox-queue';
import { call, futureDate, MID } from '#support/api';
import { cardInput } from '#support/fixtures/index';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';
import {
  allTextOf,
  closeLocalTable,
  emailsTo,
  outboxItem,
  putOutboxItem,
  sesEmails,
  setSesFailures,
  setSesFaults,
  uniqueAddress,
  waitForDrained,
  waitForEmails,
  waitForOutbox,
  type Json,
  type SesEmail,
} from '#support/notifications';
import { sleep } from '#shared/clock';
import { expectExecutionsOfGroupsSucceeded } from '#support/processing';
import { earlyInSettlementPeriod } from '#support/settlement-timing';

const groupsPath = `/rest/merchants/${MID}/groups`;
const MERCHANT = 'Springfield Elementary';

const CARDS = {
  visa: ['4111111111111111', 'VISA'],
  mastercard: ['5555555555554444', 'MASTERCARD'],
  amex: ['378282246310005', 'AMEX'],
  discover: ['6011111111111117', 'DISCOVER'],
  declined: ['4000000000000002', 'VISA'],
  partial: ['4000000000000077', 'VISA'],
} as const;
const FULL_NUMBERS = Object.values(CARDS).map(([number]) => number);

interface TestPayor {
  /** Undefined for a payor without an e-mail address. */
  address: string | undefined;
  profileId: string;
  masked: string;
  accountType: string;
}

/** Every address this file created, with the masked number its e-mails must show instead. */
const recipients = new Map<string, string>();
/** Receipts of groups this file gave up on (they still go out): awaited before the SES faults. */
const stragglers: Promise<unknown>[] = [];

async function aPayor(tag: string, [card, type]: readonly [string, string] = CARDS.visa, email = true) {
  const address = email ? uniqueAddress(`notify-${tag}`) : undefined;
  const created = await createPayor({
    ...(address && { email: address }),
    paymentMethod: cardInput({ cardNumber: card, accountType: type }),
  });
  const masked = created.savedPaymentMethods[0]!.maskedAccountNumber;
  if (address) recipients.set(address, masked);
  return {
    address,
    profileId: `${created.payorId}/${created.defaultPaymentMethodId}`,
    masked,
    accountType: type,
  } satisfies TestPayor;
}

async function createGroup(overrides: Record<string, unknown> = {}): Promise<Json> {
  const res = await call<Json>('POST', groupsPath, groupBody(overrides));
  if (res.status !== 201) throw new Error(`group create failed: ${res.status} ${res.text}`);
  return res.body;
}

const addPayment = (groupId: string, body: Record<string, unknown>) =>
  call<Json>('POST', `${groupsPath}/${groupId}/payments`, { paymentGroupId: groupId, ...body });

const putPayment = (payment: Json, body: Record<string, unknown>) =>
  call<Json>('PUT', `${groupsPath}/${payment.paymentGroupId}/payments/${payment.paymentId}`, {
    paymentId: payment.paymentId,
    paymentGroupId: payment.paymentGroupId,
    profileId: payment.profileId,
    amount: payment.amount,
    ...body,
  });

/** Triggers the group, waits until it is processed and returns its payments by id. */
async function processGroup(groupId: string): Promise<Map<string, Json>> {
  const res = await call<Json>('POST', `${groupsPath}/${groupId}/process-payments`);
  if (res.status !== 200 || res.body.totalTriggered !== 1) {
    throw new Error(`trigger failed: ${res.status} ${res.text}`);
  }
  const until = Date.now() + 20_000;
  for (;;) {
    const group = await call<Json>('GET', `${groupsPath}/${groupId}`);
    if (group.body.status === 'processed') break;
    if (Date.now() > until) throw new Error(`group ${groupId} not processed: ${group.text}`);
    await sleep(150);
  }
  const list = await call<Json[]>('GET', `${groupsPath}/${groupId}/payments`);
  return new Map(list.body.map((p) => [p.paymentId as string, p]));
}

const only = (byAddress: Map<string, SesEmail[]>, address: string | undefined): SesEmail => {
  const emails = byAddress.get(address!)!;
  expect(emails).toHaveLength(1);
  return emails[0]!;
};

// ---------------------------------------------------------------------------------------------
// Long-running scenarios, started at once so that their settlement waits overlap the other tests.

/** One group covering every receipt rule; the flags are changed by PUT before processing. */
async function receiptScenario() {
  const [approved, declined, deleted, noFlag, partial, turnedOn, turnedOff] = await Promise.all([
    aPayor('receipt-approved'),
    aPayor('receipt-declined', CARDS.declined),
    aPayor('receipt-deleted'),
    aPayor('receipt-noflag', CARDS.mastercard),
    aPayor('receipt-partial', CARDS.partial),
    aPayor('receipt-on', CARDS.amex),
    aPayor('receipt-off', CARDS.discover),
  ]);
  const group = await createGroup({
    scheduleDate: futureDate(3),
    scheduleHour: 7,
    payments: [
      { profileId: approved.profileId, amount: 10.25, orderId: 'INV-R1', sendEmailReceipt: true },
      { profileId: declined.profileId, amount: 11, sendEmailReceipt: true },
      { profileId: deleted.profileId, amount: 12, sendEmailReceipt: true },
      { profileId: noFlag.profileId, amount: 13 },
      { profileId: partial.profileId, amount: 80, allowPartial: true, sendEmailReceipt: true },
      { profileId: turnedOn.profileId, amount: 14 },
      { profileId: turnedOff.profileId, amount: 15, sendEmailReceipt: true },
    ],
  });
  const [pApproved, pDeclined, pDeleted, pNoFlag, pPartial, pOn, pOff] = group.payments as Json[];
  const deleteRes = await call(
    'DELETE',
    `${groupsPath}/${group.paymentGroupId}/payments/${pDeleted!.paymentId}`,
  );
  const putOn = await putPayment(pOn!, { sendEmailReceipt: true });
  const immutable = await putPayment(pOn!, {
    sendEmailReceipt: true,
    sendPaymentScheduledNotification: true,
  });
  const putOff = await putPayment(pOff!, { sendEmailReceipt: false });
  const afterPuts = await call<Json>(
    'GET',
    `${groupsPath}/${group.paymentGroupId}/payments/${pOn!.paymentId}`,
  );
  const byId = await processGroup(group.paymentGroupId);
  const after = (p: Json | undefined) => byId.get(p!.paymentId)!;
  return {
    deleteRes,
    putOn,
    immutable,
    putOff,
    afterPuts,
    sent: {
      approved: [approved, after(pApproved)],
      partial: [partial, after(pPartial)],
      on: [turnedOn, after(pOn)],
    },
    none: {
      declined: [declined, after(pDeclined)],
      deleted: [deleted, after(pDeleted)],
      noFlag: [noFlag, after(pNoFlag)],
      off: [turnedOff, after(pOff)],
    },
  } as const;
}

/** A processed group of two approved payments with receipts; the first is voided before settlement. */
async function voidScenario() {
  for (let attempt = 1; ; attempt++) {
    await earlyInSettlementPeriod(6_000);
    const [voided, kept] = await Promise.all([aPayor('void-voided'), aPayor('void-kept')]);
    const group = await createGroup({
      scheduleDate: futureDate(3),
      scheduleHour: 8,
      payments: [
        { profileId: voided.profileId, amount: 21, sendEmailReceipt: true },
        { profileId: kept.profileId, amount: 22, sendEmailReceipt: true },
      ],
    });
    const [voidedId, keptId] = (group.payments as Json[]).map((p) => p.paymentId as string);
    const byId = await processGroup(group.paymentGroupId);
    const settles = Date.parse(byId.get(voidedId!)!.authResponse.settlementTime);
    if (settles - Date.now() >= 2_000) {
      const res = await call<Json>('POST', `${groupsPath}/${group.paymentGroupId}/void-or-refund`, {
        paymentIds: [voidedId],
      });
      return { res, voided: [voided, byId.get(voidedId!)!], kept: [kept, byId.get(keptId!)!] } as const;
    }
    stragglers.push(waitForEmails([voided.address!, kept.address!]).catch(() => undefined));
    if (attempt === 3) throw new Error('no group was processed at least 2 s before its settlement cut-off');
  }
}

let receipts: ReturnType<typeof receiptScenario>;
let voids: ReturnType<typeof voidScenario>;
beforeAll(() => {
  receipts = receiptScenario();
  receipts.catch(() => undefined);
  voids = voidScenario();
  voids.catch(() => undefined);
});
afterAll(async () => {
  await Promise.allSettled([receipts, voids]);
  closeLocalTable();
});

// ---------------------------------------------------------------------------------------------

describe('payment-scheduled notice', () => {
  test('group create: one notice per flagged payment of a payor with an e-mail; none without the flag', async () => {
    const [flagged, unflagged, noEmail] = await Promise.all([
      aPayor('notice-flagged'),
      aPayor('notice-unflagged'),
      aPayor('notice-noemail', CARDS.visa, false),
    ]);
    const scheduleDate = futureDate(2);
    const res = await call<Json>(
      'POST',
      groupsPath,
      groupBody({
        scheduleDate,
        scheduleHour: 9,
        payments: [
          { profileId: flagged.profileId, amount: 12.3, sendPaymentScheduledNotification: true },
          { profileId: unflagged.profileId, amount: 13 },
          { profileId: noEmail.profileId, amount: 14, sendPaymentScheduledNotification: true },
        ],
      }),
    );
    // A payor without an e-mail address is no error: the payment is created with its flag.
    expect(res.status).toBe(201);
    const [pFlagged, pUnflagged, pNoEmail] = (res.body.payments as Json[]).map((p) => p.paymentId as string);
    expect((res.body.payments as Json[])[2]).toMatchObject({ sendPaymentScheduledNotification: true });

    const email = only(await waitForEmails([flagged.address!]), flagged.address);
    expect(flagged.masked).toBe('************1111');
    expect(email.subject).toContain(MERCHANT);
    expect(email.subject).toContain('12.30');
    expect(email.subject).toContain(scheduleDate);
    const text = email.body.text!;
    expect(text).toMatch(/Amount\s+12\.30\n/);
    expect(text).toContain(`VISA ************1111`);
    expect(text).toContain(`${scheduleDate} 09:00 UTC`);
    expect(text).toContain(MERCHANT);
    expect(email.body.html).toContain('************1111');
    expect(email.body.html).toContain(`${scheduleDate} 09:00 UTC`);

    const item = await outboxItem(`notice:${pFlagged}`);
    expect(item).toMatchObject({
      status: 'sent',
      kind: 'payment-scheduled',
      recipient: flagged.address,
      attempts: 1,
      messageId: email.messageId,
    });

    // The pipeline has done all it could (the create's writes handed on, no message left for the
    // notice): nothing more came, and nothing for the others (no outbox item, so no e-mail ever).
    await waitForDrained([`notice:${pFlagged}`]);
    expect(await emailsTo(flagged.address!)).toHaveLength(1);
    expect(await emailsTo(unflagged.address!)).toHaveLength(0);
    expect(await outboxItem(`notice:${pUnflagged}`)).toBeUndefined();
    expect(await outboxItem(`notice:${pNoEmail}`)).toBeUndefined();
  });

  test('add-payment: one notice for the flagged payment, none for the unflagged one; values escaped in HTML', async () => {
    const [flagged, unflagged] = await Promise.all([
      aPayor('add-flagged', CARDS.amex),
      aPayor('add-unflagged'),
    ]);
    const scheduleDate = futureDate(4);
    const group = await createGroup({ scheduleDate, scheduleHour: 0 });
    const orderId = '<b>INV&1</b>';
    const added = await addPayment(group.paymentGroupId, {
      profileId: flagged.profileId,
      amount: 7.5,
      orderId,
      sendPaymentScheduledNotification: true,
    });
    expect(added.status).toBe(201);
    const quiet = await addPayment(group.paymentGroupId, { profileId: unflagged.profileId, amount: 8 });
    expect(quiet.status).toBe(201);

    const email = only(await waitForEmails([flagged.address!]), flagged.address);
    expect(flagged.masked).toMatch(/^\*+0005$/);
    expect(email.subject).toContain('7.50');
    expect(email.body.text).toMatch(/Amount\s+7\.50\n/);
    expect(email.body.text).toContain(`AMEX ${flagged.masked}`);
    expect(email.body.text).toContain(`${scheduleDate} 00:00 UTC`);
    expect(email.body.text).toContain(MERCHANT);
    // The order reference reaches the template: raw in the text, escaped in the HTML.
    expect(email.body.text).toContain(orderId);
    expect(email.body.html).toContain('&lt;b&gt;INV&amp;1&lt;/b&gt;');
    expect(email.body.html).not.toContain(orderId);
    expect(await outboxItem(`notice:${added.body.paymentId}`)).toMatchObject({
      status: 'sent',
      attempts: 1,
      messageId: email.messageId,
    });

    // Sent at creation only: a later update of the flagged payment sends nothing more.
    const updated = await putPayment(added.body, { amount: 7.75, sendPaymentScheduledNotification: true });
    expect(updated.status).toBe(200);

    // The update's writes handed on and no message left for the notice: nothing more came.
    await waitForDrained([`notice:${added.body.paymentId}`]);
    expect(await emailsTo(flagged.address!)).toHaveLength(1);
    expect(await emailsTo(unflagged.address!)).toHaveLength(0);
    expect(await outboxItem(`notice:${quiet.body.paymentId}`)).toBeUndefined();
  });
});

describe('receipts after processing and settlement', () => {
  test('the flag can be set by PUT before processing; sendPaymentScheduledNotification cannot change', async () => {
    const r = await receipts;
    expect(r.deleteRes.status).toBe(204);
    expect(r.putOn.status).toBe(200);
    expect(r.putOn.body).toMatchObject({ sendEmailReceipt: true, sendPaymentScheduledNotification: false });
    expect(r.immutable).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('ImmutableFieldViolation') },
    });
    expect(r.afterPuts.body).toMatchObject({
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: false,
    });
    expect(r.putOff.status).toBe(200);
    expect(r.putOff.body).toMatchObject({ sendEmailReceipt: false });
  });

  test('exactly the approved payments with sendEmailReceipt (as it stands at processing) get one receipt', async () => {
    const r = await receipts;
    const [approved, approvedPayment] = r.sent.approved;
    const [partial, partialPayment] = r.sent.partial;
    const [turnedOn, turnedOnPayment] = r.sent.on;
    expect(approvedPayment.authResponse).toMatchObject({ status: 'Approved', approvedAmount: 10.25 });
    expect(partialPayment.authResponse).toMatchObject({ status: 'Approved', amount: 80, approvedAmount: 50 });
    expect(turnedOnPayment.authResponse).toMatchObject({ status: 'Approved' });
    expect(r.none.declined[1].authResponse).toMatchObject({ status: 'Declined', responseCode: '05' });
    expect(r.none.noFlag[1].authResponse).toMatchObject({ status: 'Approved' });
    expect(r.none.off[1].authResponse).toMatchObject({ status: 'Approved' });
    expect(r.none.deleted[1]).toMatchObject({ deleted: true });

    const got = await waitForEmails([approved.address!, partial.address!, turnedOn.address!]);
    const check = (payor: TestPayor, payment: Json, charged: string) => {
      const email = only(got, payor.address);
      const auth = payment.authResponse as Json;
      expect(email.subject).toMatch(/receipt/i);
      expect(email.subject).toContain(MERCHANT);
      expect(email.subject).toContain(charged);
      const text = email.body.text!;
      expect(text).toMatch(new RegExp(`Amount charged\\s+${charged.replace('.', '\\.')}\\n`));
      expect(text).toContain(`${payor.accountType} ${payor.masked}`);
      expect(text).toContain(auth.transactionId);
      expect(text).toContain((auth.processedAt as string).slice(0, 10));
      expect(text).toContain(MERCHANT);
      expect(email.body.html).toContain(auth.transactionId);
      expect(email.body.html).toContain(payor.masked);
      return email;
    };
    const approvedEmail = check(approved, approvedPayment, '10.25');
    expect(approvedEmail.body.text).not.toContain('Amount requested');
    expect(approvedEmail.body.text).toContain('INV-R1');
    const partialEmail = check(partial, partialPayment, '50.00');
    expect(partialEmail.body.text).toMatch(/Amount requested\s+80\.00\n/);
    check(turnedOn, turnedOnPayment, '14.00');
    for (const [payor, payment] of Object.values(r.sent)) {
      expect(await outboxItem(`receipt:${payment.paymentId}`)).toMatchObject({
        kind: 'receipt',
        status: 'sent',
        attempts: 1,
        messageId: only(got, payor.address).messageId,
      });
    }

    // The receipts step has run for the whole group (its execution succeeded) and the pipeline has
    // done all it could for the receipts: none sent twice; the others have no outbox item and no e-mail.
    await expectExecutionsOfGroupsSucceeded([approvedPayment.paymentGroupId as string], 1);
    await waitForDrained(Object.values(r.sent).map(([, payment]) => `receipt:${payment.paymentId}`));
    for (const [payor] of Object.values(r.sent)) expect(await emailsTo(payor.address!)).toHaveLength(1);
    for (const [payor, payment] of Object.values(r.none)) {
      expect(await outboxItem(`receipt:${payment.paymentId}`)).toBeUndefined();
      expect(await emailsTo(payor.address!)).toHaveLength(0);
    }
  });

  test('a payment voided before settlement gets no receipt; its unvoided neighbour does', async () => {
    const { res, voided, kept } = await voids;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ voidedCount: 1, refundedCount: 0 });
    expect(voided[1].authResponse).toMatchObject({ status: 'Approved' });

    const got = await waitForEmails([kept[0].address!]);
    const email = only(got, kept[0].address);
    expect(email.subject).toMatch(/receipt/i);
    expect(email.body.text).toContain(kept[1].authResponse.transactionId);

    // The receipts step has run (the execution succeeded) and the kept receipt's pipeline drained.
    await expectExecutionsOfGroupsSucceeded([kept[1].paymentGroupId as string], 1);
    await waitForDrained([`receipt:${kept[1].paymentId}`]);
    expect(await outboxItem(`receipt:${voided[1].paymentId}`)).toBeUndefined();
    expect(await emailsTo(voided[0].address!)).toHaveLength(0);
    expect(await emailsTo(kept[0].address!)).toHaveLength(1);
  });
});

describe('a queue message delivered twice sends one e-mail', () => {
  type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  let notifier: QueueHandler;
  let context: () => Context;
  /** What this file's notifier put back on the queue (a delivery that met another's claim). */
  const requeued: QueuedMessage[] = [];

  // The notifier function itself, pointed at the runtime's table and SES, receives the message a
  // second (and third) time, as SQS may deliver it; its retries are caught here.
  beforeAll(async () => {
    const runtime = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.json'), 'utf8'));
    Object.assign(process.env, {
      TABLE_NAME: runtime.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamodbEndpoint,
      AWS_ENDPOINT_URL_SESV2: process.env.E2E_SES_URL,
      SES_FROM_ADDRESS: 'payments@scheduled-payments.example',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    (await import('#shared/outbox-queue')).useOutboxQueue({
      send: async (messages) => {
        requeued.push(...messages);
        return [];
      },
    });
    notifier = (await import('#lambdas/notifications/send-notifications')).handler as QueueHandler;
    const { lambdaContext } = await import('#lib/local/http-server');
    context = () => lambdaContext('Notifier', 60_000);
  });
  afterAll(async () => {
    (await import('#shared/ddb')).ddb().destroy();
  });

  const queueMessage = (outboxId: string): SQSEvent => ({
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body: JSON.stringify({ outboxId, notReady: 0 }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'e2e',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:e2e',
        awsRegion: 'us-east-1',
      },
    ],
  });

  /** Each delivery succeeded; one that met another's live claim put the message back, delayed. */
  const expectNoneSentTwice = (results: SQSBatchResponse[], outboxId: string) => {
    for (const result of results) expect(result.batchItemFailures).toEqual([]);
    for (const queued of requeued.splice(0)) {
      expect(queued.message).toEqual({ outboxId, notReady: 1 });
      expect(queued.delaySeconds).toBeGreaterThanOrEqual(1);
    }
  };

  test('a sent notice delivered again sends nothing', async () => {
    const payor = await aPayor('redeliver');
    const group = await createGroup({ scheduleDate: futureDate(5) });
    const added = await addPayment(group.paymentGroupId, {
      profileId: payor.profileId,
      amount: 3.33,
      sendPaymentScheduledNotification: true,
    });
    const outboxId = `notice:${added.body.paymentId}`;
    const sent = await waitForOutbox(outboxId, ['sent', 'failed']);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1 });

    const event = queueMessage(outboxId);
    const results = await Promise.all([notifier(event, context()), notifier(event, context())]);
    // A delivery that meets another's live claim asks to be delivered again later (in case that
    // one dies mid-send); it never sends itself.
    expectNoneSentTwice(results, outboxId);

    await waitForDrained([outboxId]);
    const emails = await emailsTo(payor.address!);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.messageId).toBe(sent.messageId);
    expect((await sesEmails()).filter((e) => e.messageId === sent.messageId)).toHaveLength(1);
    expect(await outboxItem(outboxId)).toEqual(sent);
  });

  test('a new outbox item delivered three times at once (runtime + two more) sends one e-mail', async () => {
    const payor = await aPayor('race');
    const group = await createGroup({ scheduleDate: futureDate(5) });
    const added = await addPayment(group.paymentGroupId, {
      profileId: payor.profileId,
      amount: 4.44,
      sendPaymentScheduledNotification: true,
    });
    const template = await waitForOutbox(`notice:${added.body.paymentId}`, ['sent', 'failed']);

    // A second intent like the one the service writes, to a fresh address: the runtime's queue
    // delivers its message, and the same message is delivered twice more concurrently.
    const address = uniqueAddress('notify-race-copy');
    recipients.set(address, payor.masked);
    const outboxId = `notice:${randomUUID()}`;
    const { messageId: _m, sentAt: _s, lastError: _e, leaseUntil: _l, ...rest } = template;
    await putOutboxItem({
      ...rest,
      outboxId,
      recipient: address,
      status: 'pending',
      attempts: 0,
      createdAt: new Date().toISOString(),
    });
    const event = queueMessage(outboxId);
    const results = await Promise.all([notifier(event, context()), notifier(event, context())]);
    // A delivery that meets another's live claim asks to be delivered again later (in case that
    // one dies mid-send); it never sends itself.
    expectNoneSentTwice(results, outboxId);

    const item = await waitForOutbox(outboxId, ['sent', 'failed']);
    expect(item).toMatchObject({ status: 'sent', attempts: 1 });
    await waitForDrained([outboxId]);
    const emails = await emailsTo(address);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.messageId).toBe(item.messageId);
  });
});

const withoutIds = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');

describe('no full account number in any e-mail', () => {
  test('every e-mail to this file’s payors shows the masked number and no full test card number', async () => {
    await Promise.allSettled([receipts, voids]);
    const all = await sesEmails();
    let checked = 0;
    for (const [address, masked] of recipients) {
      for (const email of all.filter((e) => e.destination.to.includes(address))) {
        const content = allTextOf(email);
        for (const number of FULL_NUMBERS) expect(content).not.toContain(number);
        // Transaction ids are taken out first: a random UUID's last group can be twelve digits.
        expect(withoutIds(email.subject + email.body.text)).not.toMatch(/\d{12,19}/);
        expect(email.body.text).toContain(masked);
        expect(email.body.html).toContain(masked);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});

describe('SES faults (the fault switch is runtime-wide: set here only, always reset)', () => {
  beforeAll(async () => {
    // No e-mail of this file may be in flight while the failures count down.
    await Promise.allSettled([receipts, voids, ...stragglers]);
  });
  afterAll(async () => {
    await setSesFaults({ sesFailures: 0, sesRefusals: 0 });
  });

  async function flaggedPayment(tag: string) {
    const payor = await aPayor(tag);
    const group = await createGroup({ scheduleDate: futureDate(6) });
    return {
      payor,
      add: async () => {
        const added = await addPayment(group.paymentGroupId, {
          profileId: payor.profileId,
          amount: 5.55,
          sendPaymentScheduledNotification: true,
        });
        expect(added.status).toBe(201);
        return `notice:${added.body.paymentId}`;
      },
    };
  }

  // Issue 10, item 6: throttling alone sent an item to `failed` after MAX_SEND_ATTEMPTS (5).
  test('five throttled sends (as many as the attempts), then success: sent, 1 attempt, 5 throttles, never failed', async () => {
    const { payor, add } = await flaggedPayment('fault-retry');
    let item: Json;
    try {
      await setSesFailures(5);
      item = await waitForOutbox(await add(), ['sent', 'failed', 'stuck'], 60_000);
    } finally {
      await setSesFailures(0);
    }
    expect(item).toMatchObject({
      status: 'sent',
      attempts: 1,
      throttles: 5,
      lastError: expect.stringMatching(/TooManyRequests|rate exceeded/i),
    });
    await waitForDrained([item.outboxId as string]);
    const emails = await emailsTo(payor.address!);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.messageId).toBe(item.messageId);
  }, 90_000);

  test('SES refuses every send: the item ends failed after 5 attempts with the reason, nothing sent; e-mail resumes after', async () => {
    const down = await flaggedPayment('fault-down');
    const up = await flaggedPayment('fault-up');
    let item: Json;
    try {
      await setSesFaults({ sesRefusals: 12 });
      item = await waitForOutbox(await down.add(), ['sent', 'failed'], 60_000);
    } finally {
      await setSesFaults({ sesRefusals: 0 });
    }
    expect(item).toMatchObject({
      status: 'failed',
      attempts: 5,
      lastError: expect.stringMatching(/MessageRejected/),
    });
    expect(item).not.toHaveProperty('messageId');
    await waitForDrained([item.outboxId as string]);
    expect(await emailsTo(down.payor.address!)).toHaveLength(0);

    const upId = await up.add();
    only(await waitForEmails([up.payor.address!]), up.payor.address);
    expect(await outboxItem(upId)).toMatchObject({ status: 'sent', attempts: 1 });
    // The failed item stays failed and visible; it is not sent behind the operator's back.
    expect(await outboxItem(item.outboxId)).toMatchObject({ status: 'failed', attempts: 5 });
    expect(await emailsTo(down.payor.address!)).toHaveLength(0);
  }, 90_000);
});
