/**
 * Issue 18, items 2-5: webhook endpoints and signed delivery, end to end. The local runtime (its
 * own: the retry schedule shortened by WEBHOOK_RETRY_SCALE, a sweep every second) delivers to
 * real HTTP receivers on loopback that verify every request with the `standardwebhooks` package.
 * Events are written into the runtime's table as the write paths write them (`eventPut`'s item),
 * and reach the endpoints through the table's stream, the webhook queue and the delivery function.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { newEvent, type ServiceEvent } from '#domain/events';
import { eventItem } from '#store/events';
import { WEBHOOK_DELIVERY } from '#contract/webhooks';
import { sleep } from '#shared/clock';
import { call, MID, OTHER, OTHER_MID, tokenFor } from '#support/api';
import { idempotencyRecordKey } from '#support/idempotency-records';
import {
  closeLocalTable,
  emailsTo,
  localTable,
  outboxItem,
  uniqueAddress,
  waitForEmails,
} from '#support/notifications';
import { delivered, startReceiver, type Receiver } from '#support/webhook-receiver';
import { createPayor } from '#support/fixtures/e2e-resources';
import { cardInput, checkingInput } from '#support/fixtures/inputs';
import { randomUUID } from 'node:crypto';
import { localToolCommand } from '#lib/local/runtime-bundle';

const V1 = `/v1/rest/merchants/${MID}`;
const W = `${V1}/webhook-endpoints`;

let runtime: LocalRuntimeProcess | undefined;
const shared: Record<string, string | undefined> = {};
const SHARED_VARIABLES = ['E2E_BASE_URL', 'E2E_DATA_DIR', 'E2E_SES_URL'];
const receivers: Receiver[] = [];
const secrets: string[] = [];

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-webhooks',
    env: {
      // 5 s → 10 ms, 5 min → 0.6 s, 30 min → 3.6 s, 2 h → 14.4 s: retries within a test's time.
      WEBHOOK_RETRY_SCALE: '0.002',
      LOCAL_WEBHOOK_SWEEP_SECONDS: '1',
      AUTHZ_CACHE_SECONDS: '0',
      LOCAL_DUE_SWEEP_SECONDS: '0',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      // The file runs the notices backstop itself and counts what each run applied: the timer's
      // run (every 5 s) falling between settle-now and the file's own applied the return first
      // on a loaded machine, and the file's run found nothing left (applied 0).
      LOCAL_NOTICES_TIMER: 'off',
    },
  });
  for (const name of SHARED_VARIABLES) shared[name] = process.env[name];
  Object.assign(process.env, {
    E2E_BASE_URL: runtime.url,
    E2E_DATA_DIR: runtime.dataDir,
    E2E_SES_URL: runtime.sesUrl,
  });
}, 120_000);

afterAll(async () => {
  for (const r of receivers) await r.close();
  closeLocalTable();
  for (const name of SHARED_VARIABLES) process.env[name] = shared[name];
  await runtime?.stop();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function createEndpoint(body: Record<string, unknown>, mid = MID) {
  const res = await call('POST', `/v1/rest/merchants/${mid}/webhook-endpoints`, body);
  if (res.status !== 201) throw new Error(`endpoint create: ${res.status} ${res.text}`);
  secrets.push(res.body.secret);
  return res.body as { webhookEndpointId: string; secret: string; [k: string]: unknown };
}

/** The events of one object, sequence 1..n, written in order as the write paths write them. */
async function writeEvents(objectId: string, types: string[], mid = MID): Promise<ServiceEvent[]> {
  const { doc, tableName } = localTable();
  const events: ServiceEvent[] = [];
  for (const [i, type] of types.entries()) {
    const event = newEvent(
      {
        type: type as ServiceEvent['type'],
        merchantId: mid,
        objectId,
        sequence: i + 1,
        data: { payorId: objectId, n: i + 1 },
      },
      new Date(),
    );
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: eventItem(event),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    events.push(event);
  }
  return events;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(200);
  }
}

const deliveriesOf = async (endpointId: string, query = '') =>
  (await call('GET', `${W}/${endpointId}/deliveries?pageSize=500${query}`)).body.items as any[];

describe('endpoints', () => {
  test('create answers the secret once; GET, list and PUT never show it; DELETE is 204 then 404', async () => {
    const hooks = await receiver();
    const created = await call('POST', W, { url: hooks.url('/crud'), description: 'crud' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      webhookEndpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: hooks.url('/crud'),
      enabledEvents: ['*'],
      description: 'crud',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      dateCreated: expect.any(String),
      lastUpdated: expect.any(String),
    });
    secrets.push(created.body.secret);
    // 32 random bytes behind the prefix.
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    const id = created.body.webhookEndpointId;
    const one = await call('GET', `${W}/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(one.text).not.toContain(created.body.secret.slice(6));
    const list = await call('GET', W);
    expect(list.body.map((e: any) => e.webhookEndpointId)).toContain(id);
    expect(list.text).not.toContain(created.body.secret.slice(6));
    const put = await call('PUT', `${W}/${id}`, {
      enabledEvents: ['payor.*', 'group.created'],
      status: 'disabled',
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ enabledEvents: ['payor.*', 'group.created'], status: 'disabled' });
    expect(put.body.secret).toBeUndefined();
    expect((await call('DELETE', `${W}/${id}`)).status).toBe(204);
    expect((await call('GET', `${W}/${id}`)).status).toBe(404);
    expect((await call('DELETE', `${W}/${id}`)).status).toBe(404);
  });

  test('defect: a replayed create hands out a retired secret (a replay answers the current secret, of a create or a rotation)', async () => {
    const hooks = await receiver();
    const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });
    const createKey = `e2e-${randomUUID()}`;
    const create = () => call('POST', W, { url: hooks.url('/replayed') }, keyed(createKey));
    const created = await create();
    expect(created.status).toBe(201);
    secrets.push(created.body.secret);
    const id = created.body.webhookEndpointId as string;
    const rotate = (key?: string) =>
      call('POST', `${W}/${id}/rotate-secret`, undefined, key === undefined ? {} : keyed(key));

    // Unrotated, the replay answers what the create answered.
    const same = await create();
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(same.body).toEqual(created.body);

    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    secrets.push(rotated.body.secret);
    const replayed = await create();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.webhookEndpointId).toBe(id);
    expect(replayed.body.secret).not.toBe(created.body.secret);
    expect(replayed.body.secret).toBe(rotated.body.secret);

    // A rotation's replay too: after a later rotation it answers the secret that signs now.
    const rotateKey = `e2e-${randomUUID()}`;
    const keyedRotation = await rotate(rotateKey);
    secrets.push(keyedRotation.body.secret);
    expect((await rotate(rotateKey)).body.secret).toBe(keyedRotation.body.secret);
    const later = await rotate();
    secrets.push(later.body.secret);
    const rotationReplayed = await rotate(rotateKey);
    expect(rotationReplayed.status).toBe(200);
    expect(rotationReplayed.headers.get('idempotent-replayed')).toBe('true');
    expect(rotationReplayed.body.secret).toBe(later.body.secret);
    expect((await create()).body.secret).toBe(later.body.secret);

    // The key's record keeps no secret, sealed or not: only which endpoint it made.
    const { doc, tableName } = localTable();
    for (const [scope, key] of [
      ['request', createKey],
      ['request', rotateKey],
    ] as const) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: tableName, Key: idempotencyRecordKey(MID, scope, key) }),
      );
      expect(Item).toBeDefined();
      expect(JSON.stringify(Item)).not.toMatch(/whsec_|sealedSecret/);
    }
    expect((await call('DELETE', `${W}/${id}`)).status).toBe(204);
  });

  test('at most 16 endpoints per merchant: the 17th is 400 and writes nothing', async () => {
    const hooks = await receiver();
    const mid = OTHER_MID;
    const token = await tokenFor(OTHER);
    const path = `/v1/rest/merchants/${mid}/webhook-endpoints`;
    const have = (await call('GET', path, undefined, { token })).body.length as number;
    for (let i = have; i < 16; i++) {
      const res = await call(
        'POST',
        path,
        { url: hooks.url(`/limit/${i}`), enabledEvents: ['refund.failed'] },
        { token },
      );
      expect(res.status).toBe(201);
      secrets.push(res.body.secret);
    }
    const over = await call('POST', path, { url: hooks.url('/limit/17') }, { token });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      message: 'a merchant can have at most 16 webhook endpoints',
      responseCode: 400,
    });
    expect((await call('GET', path, undefined, { token })).body).toHaveLength(16);
  });

  test.each([
    ['http on a public name', 'http://hooks.example.com/in', 'url must use https'],
    ['an IP literal', 'https://93.184.216.34/in', 'url must name a host, not an IP address'],
    [
      'the metadata address',
      'https://169.254.169.254/latest/meta-data',
      'url must name a host, not an IP address',
    ],
    ['a private IP', 'https://10.0.0.7/in', 'url must name a host, not an IP address'],
    ['IPv6 loopback', 'https://[::1]/in', 'url must name a host, not an IP address'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in', 'url must name a host, not an IP address'],
    ['a loopback address other than 127.0.0.1', 'http://127.0.0.2:9000/in', 'url must use https'],
    [
      'credentials in the URL',
      'https://user:pass@hooks.example.com/in',
      'url must not hold a user name or password',
    ],
    ['a name that does not resolve', 'https://hooks.invalid/in', 'url host hooks.invalid does not resolve'],
  ])(
    'refuses %s with 400 naming url, at create and at update, writing nothing',
    async (_name, url, message) => {
      const before = (await call('GET', W)).body.length;
      const res = await call('POST', W, { url });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { message, responseCode: 400 },
      });
      expect((await call('GET', W)).body.length).toBe(before);
      const hooks = await receiver();
      const endpoint = await createEndpoint({ url: hooks.url('/ssrf'), enabledEvents: ['refund.failed'] });
      const put = await call('PUT', `${W}/${endpoint.webhookEndpointId}`, { url });
      expect({ status: put.status, body: put.body }).toEqual({
        status: 400,
        body: { message, responseCode: 400 },
      });
      expect((await call('GET', `${W}/${endpoint.webhookEndpointId}`)).body.url).toBe(hooks.url('/ssrf'));
      await call('DELETE', `${W}/${endpoint.webhookEndpointId}`);
    },
  );
});

describe('delivery', () => {
  test('a receiver failing the first attempts gets every event again, in order per object, each once after its 2xx', async () => {
    // Fails the first two attempts of every event with 500, then answers 200.
    const hooks = await receiver((_r, attempt) => (attempt <= 2 ? 500 : 200));
    const endpoint = await createEndpoint({ url: hooks.url('/retry'), enabledEvents: ['payor.*'] });
    hooks.secrets = [endpoint.secret];
    const objects = [randomUUID(), randomUUID(), randomUUID()];
    const written = (
      await Promise.all(
        objects.map((o) =>
          writeEvents(o, ['payor.created', 'payor.updated', 'payor.updated', 'payor.deleted']),
        ),
      )
    ).flat();
    await until(
      'every event delivered',
      () => delivered(hooks, '/retry').length >= written.length || undefined,
    );
    const ok = delivered(hooks, '/retry');
    // Each event's 2xx came once; it was tried three times with the same webhook-id, each signed.
    expect(ok.map((r) => r.id).sort()).toEqual(written.map((e) => e.id).sort());
    const mine = hooks.received.filter((r) => r.path === '/retry');
    expect(mine.every((r) => r.verified)).toBe(true);
    expect(mine.every((r) => r.contentType === 'application/json')).toBe(true);
    for (const e of written)
      expect(mine.filter((r) => r.id === e.id).map((r) => r.status)).toEqual([500, 500, 200]);
    for (const r of mine) expect(r.event.id).toBe(r.id);
    // In order per object: no attempt of an event before the 2xx of the object's previous event.
    for (const objectId of objects) {
      const attempts = mine.filter((r) => r.event.objectId === objectId);
      for (const r of attempts) {
        const previous = ok.find(
          (x) => x.event.objectId === objectId && x.event.sequence === r.event.sequence - 1,
        );
        if (r.event.sequence > 1)
          expect({ seq: r.event.sequence, after: previous!.n < r.n }).toEqual({
            seq: r.event.sequence,
            after: true,
          });
      }
      expect(ok.filter((x) => x.event.objectId === objectId).map((x) => x.event.sequence)).toEqual([
        1, 2, 3, 4,
      ]);
    }
    // The deliveries list says so.
    const listed = await deliveriesOf(endpoint.webhookEndpointId);
    expect(listed).toHaveLength(written.length);
    for (const d of listed)
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
    // And so does the local listing of every delivery.
    const local = (await (
      await fetch(`${runtime!.url}/__local/webhooks?webhookEndpointId=${endpoint.webhookEndpointId}`)
    ).json()) as any[];
    expect(local.map((d) => [d.status, d.attempts, d.lastStatusCode])).toEqual(
      written.map(() => ['delivered', 3, 200]),
    );
  }, 120_000);

  test('after a rotation every delivery carries two signatures, each verifying with its own secret', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint({ url: hooks.url('/rotate'), enabledEvents: ['payor.updated'] });
    const rotated = await call('POST', `${W}/${endpoint.webhookEndpointId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['secret']);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    secrets.push(rotated.body.secret);
    hooks.secrets = [endpoint.secret, rotated.body.secret];
    const [, event] = await writeEvents(randomUUID(), ['payor.created', 'payor.updated']);
    const got = await until('the rotated delivery', () => delivered(hooks, '/rotate')[0]);
    expect(got.id).toBe(event!.id);
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(got.signature.split(' ').every((s) => s.startsWith('v1,'))).toBe(true);
    const headers = {
      'webhook-id': got.id,
      'webhook-timestamp': got.timestamp,
      'webhook-signature': got.signature,
    };
    expect(new Webhook(rotated.body.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(new Webhook(endpoint.secret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(got.verified).toBe(true);
    // A secret never issued does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, headers),
    ).toThrow();
  });

  test('a 410 disables the endpoint: the delivery fails with 410 and nothing more is sent to it', async () => {
    const hooks = await receiver(() => 410);
    const endpoint = await createEndpoint({ url: hooks.url('/gone'), enabledEvents: ['payor.created'] });
    hooks.secrets = [endpoint.secret];
    await writeEvents(randomUUID(), ['payor.created']);
    const disabled = await until('the endpoint disabled', async () => {
      const e = (await call('GET', `${W}/${endpoint.webhookEndpointId}`)).body;
      return e.status === 'disabled' ? e : undefined;
    });
    expect(disabled.disabledReason).toMatch(/^answered 410 Gone at /);
    const [d] = await deliveriesOf(endpoint.webhookEndpointId);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
    expect(hooks.received).toHaveLength(1);
    // A witness endpoint of the same merchant takes the same events: once it has received the next
    // one, that event's fan-out has run, and a delivery it gave the disabled endpoint would show.
    const witness = await receiver();
    const seen = await createEndpoint({
      url: witness.url('/gone-witness'),
      enabledEvents: ['payor.created'],
    });
    witness.secrets = [seen.secret];
    const [next] = await writeEvents(randomUUID(), ['payor.created']);
    await until('the witness has the event', () => delivered(witness).find((r) => r.id === next!.id));
    expect(await deliveriesOf(endpoint.webhookEndpointId)).toHaveLength(1);
    expect(hooks.received).toHaveLength(1);
    expect((await call('DELETE', `${W}/${seen.webhookEndpointId}`)).status).toBe(204);
    // Enabled again by the merchant, it receives new events.
    hooks.answer = () => 200;
    const put = await call('PUT', `${W}/${endpoint.webhookEndpointId}`, { status: 'enabled' });
    expect(put.body.status).toBe('enabled');
    expect(put.body.disabledReason).toBeUndefined();
    const [fresh] = await writeEvents(randomUUID(), ['payor.created']);
    await until('delivered after enabling', () => delivered(hooks).find((r) => r.id === fresh!.id));
  });

  test('replay sends the events since a time again, with the same ids, in order per object', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint({ url: hooks.url('/replay'), enabledEvents: ['payor.*'] });
    hooks.secrets = [endpoint.secret];
    const since = new Date(Date.now() - 1000).toISOString();
    const objects = [randomUUID(), randomUUID()];
    const written = (
      await Promise.all(
        objects.map((o) => writeEvents(o, ['payor.created', 'payor.updated', 'payor.updated'])),
      )
    ).flat();
    await until('first deliveries', () => delivered(hooks).length >= written.length || undefined);
    const firstRound = delivered(hooks).length;
    const accepted = await call('POST', `${W}/${endpoint.webhookEndpointId}/replay`, { since });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      webhookEndpointId: endpoint.webhookEndpointId,
      since,
      status: 'accepted',
    });
    await until('replayed', () => delivered(hooks).length >= firstRound + written.length || undefined);
    const again = delivered(hooks).slice(firstRound);
    expect(again.map((r) => r.id).sort()).toEqual(written.map((e) => e.id).sort());
    expect(again.every((r) => r.verified)).toBe(true);
    for (const o of objects)
      expect(again.filter((r) => r.event.objectId === o).map((r) => r.event.sequence)).toEqual([1, 2, 3]);
    // Refusals: a future since, and a disabled endpoint.
    const future = await call('POST', `${W}/${endpoint.webhookEndpointId}/replay`, {
      since: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(future.body).toEqual({ message: 'since must not be in the future', responseCode: 400 });
  }, 90_000);

  test('a dead endpoint does not hold up a healthy one', async () => {
    // The dead one never answers: each attempt ends at the 10-second timeout.
    const dead = await receiver(() => 'hang');
    const healthy = await receiver();
    const deadEndpoint = await createEndpoint({
      url: dead.url('/dead'),
      enabledEvents: ['payment_method.*'],
    });
    const healthyEndpoint = await createEndpoint({
      url: healthy.url('/healthy'),
      enabledEvents: ['payment_method.*'],
    });
    healthy.secrets = [healthyEndpoint.secret];
    const EVENTS = 60;
    const written = (
      await Promise.all(
        Array.from({ length: EVENTS }, () => writeEvents(randomUUID(), ['payment_method.created'])),
      )
    ).flat();
    await until(
      'the healthy endpoint has every event',
      () => delivered(healthy).length >= EVENTS || undefined,
      60_000,
    );
    expect(
      delivered(healthy)
        .map((r) => r.id)
        .sort(),
    ).toEqual(written.map((e) => e.id).sort());
    expect(healthy.received.every((r) => r.verified)).toBe(true);
    // Meanwhile the dead endpoint got only the attempts its slots allow (4 at a time in an
    // invocation of the webhook queue until its first attempt had waited a second and put it in the
    // slow lane, then 4 in each of the slow lane's invocations; then the breaker), and its
    // deliveries wait for their retries: each recorded pending once the fan-out's attempt of it
    // timed out, or its turn went by the slow lane (an object's first event is attempted before its
    // record is written).
    expect(dead.received.length).toBeLessThanOrEqual(
      4 * (WEBHOOK_DELIVERY.concurrency + WEBHOOK_DELIVERY.slowConcurrency),
    );
    const deadDeliveries = await until(
      'every delivery of the dead endpoint recorded',
      async () => {
        const found = await deliveriesOf(deadEndpoint.webhookEndpointId);
        return found.length >= EVENTS ? found : undefined;
      },
      30_000,
    );
    expect(deadDeliveries).toHaveLength(EVENTS);
    expect(deadDeliveries.every((d) => d.status === 'pending')).toBe(true);
    // The operator's listing names it (and the endpoint that answered 410), with the last error.
    await until(
      'a failed attempt of the dead endpoint',
      async () =>
        (await deliveriesOf(deadEndpoint.webhookEndpointId)).some((d) => d.lastError !== undefined) ||
        undefined,
    );
    const admin = spawnSync(...localToolCommand('admin', ['webhooks', '--failing']), {
      env: { ...process.env, DATA_DIR: runtime!.dataDir },
      encoding: 'utf8',
    });
    expect(admin.stderr).toBe('');
    expect(admin.stdout).toMatch(/^\d+ failing webhook endpoint\(s\) in local runtime/);
    const line = admin.stdout.split('\n').find((l) => l.startsWith(deadEndpoint.webhookEndpointId));
    expect(line).toMatch(/retrying \d+/);
    // Its last error: a timeout, or a turn skipped while its breaker is open.
    expect(line).toMatch(/last: (timeout|not tried: the endpoint failed its last attempts)/);
    expect(admin.stdout).toMatch(/\/gone {2}failed 1 .* last: HTTP 410/);
    await call('DELETE', `${W}/${deadEndpoint.webhookEndpointId}`);
  }, 120_000);
});

describe('money that comes back', () => {
  test('a returned bank debit: settle-now brings its return forward, the notices backstop applies it, GET shows it Returned (the refund held until it cleared Failed) and the receiver gets transaction.returned, verified', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint({ url: hooks.url('/returns'), enabledEvents: ['transaction.*'] });
    hooks.secrets = [endpoint.secret];
    // The sandbox's R01 account: returned (insufficient funds) at the 2nd cut-off after settlement.
    const email = uniqueAddress('returned');
    const payor = await createPayor({
      email,
      paymentMethod: checkingInput({ accountNumber: '000222222227' }),
    });
    const sold = await call('POST', `${V1}/transactions`, {
      profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`,
      amount: 40,
    });
    expect(sold).toMatchObject({ status: 201, body: { status: 'Approved', cleared: false } });
    const transactionId = sold.body.transactionId as string;

    // One banking day sooner: the earliest notice still ahead (this debit's return) is due now.
    const settled = await call('POST', `/rest/merchants/${MID}/settle-now`);
    expect(settled).toMatchObject({ status: 200, body: { noticesBroughtForward: 1 } });
    // Settled, not cleared: a refund is accepted but held until the debit clears.
    const held = await call('POST', `${V1}/transactions/${transactionId}/refunds`, { amount: 10 });
    expect(held).toMatchObject({
      status: 201,
      body: { status: 'Pending', heldUntilCleared: true, availableRefundAmount: 30 },
    });
    const run = await fetch(`${runtime!.url}/__local/events/notices`, { method: 'POST' });
    expect(run.status).toBe(200);
    expect(((await run.json()) as { listed: { applied: number } }).listed.applied).toBe(1);

    const got = await call('GET', `${V1}/transactions/${transactionId}`);
    expect(got.body).toMatchObject({
      status: 'Returned',
      return: { code: 'R01', category: 'nsf' },
      refundedAmount: 0,
      availableRefundAmount: 0,
      // Returned before it cleared: the held refund was never sent.
      refundHistory: [{ refundId: held.body.refundId, amount: 10, status: 'Failed' }],
    });
    const returned = await until('transaction.returned delivered', () =>
      delivered(hooks, '/returns').find((r) => r.event.type === 'transaction.returned'),
    );
    expect(returned.verified).toBe(true);
    expect(returned.event.data).toMatchObject({
      transactionId,
      status: 'Returned',
      return: { code: 'R01', category: 'nsf' },
    });
    // Money that came back is not refunded again.
    const refund = await call('POST', `${V1}/transactions/${transactionId}/refunds`, { amount: 10 });
    expect(refund).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('was returned by the bank (R01') },
    });
    // The merchant's returns list has it, and its return rates count it (this runtime's only debit).
    const listed = await call('GET', `${V1}/returns`);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ transactionId, code: 'R01', category: 'nsf', amount: 40 }),
    ]);
    const rates = await call('GET', `/rest/merchants/${MID}/return-rates`);
    expect(rates.body).toMatchObject({ debitCount: 1, overall: { count: 1, rate: 1, status: 'over' } });
    // The payor is e-mailed once that the debit was returned (SES local); the backstop again sends none.
    const mails = (await waitForEmails([email])).get(email)!;
    expect(mails.map((m) => m.subject)).toEqual([
      expect.stringContaining('your payment of 40.00 was returned by your bank'),
    ]);
    expect(mails[0]!.body.text).toContain('R01: Insufficient funds');
    const again = await fetch(`${runtime!.url}/__local/events/notices`, { method: 'POST' });
    expect(((await again.json()) as { listed: { applied: number } }).listed.applied).toBe(0);
    expect(await outboxItem(`return:${transactionId}`)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(await emailsTo(email)).toHaveLength(1);
  }, 60_000);

  test('a disputed card charge: the test clock brings its dispute forward, the backstop applies it, the sale shows it, dispute.created reaches the receiver verified, a refund is refused naming it', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint({ url: hooks.url('/disputes'), enabledEvents: ['dispute.*'] });
    hooks.secrets = [endpoint.secret];
    // The sandbox's card disputed product_not_received at the 1st cut-off after settlement.
    const payor = await createPayor({ paymentMethod: cardInput({ cardNumber: '4000000000002685' }) });
    const sold = await call('POST', `${V1}/transactions`, {
      profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`,
      amount: 30,
    });
    expect(sold).toMatchObject({ status: 201, body: { status: 'Approved' } });
    const transactionId = sold.body.transactionId as string;
    let got = await call('GET', `${V1}/transactions/${transactionId}`);
    for (let day = 0; day < 5 && got.body.dispute === undefined; day++) {
      await call('POST', `/rest/merchants/${MID}/settle-now`);
      expect((await fetch(`${runtime!.url}/__local/events/notices`, { method: 'POST' })).status).toBe(200);
      got = await call('GET', `${V1}/transactions/${transactionId}`);
    }
    expect(got.body).toMatchObject({
      availableRefundAmount: 0,
      dispute: { transactionId, status: 'needs_response', reason: 'product_not_received', amount: 30 },
    });
    const dispute = got.body.dispute as { disputeId: string };
    const created = await until('dispute.created delivered', () =>
      delivered(hooks, '/disputes').find((r) => r.event.type === 'dispute.created'),
    );
    expect(created.verified).toBe(true);
    expect(created.event).toMatchObject({ objectId: dispute.disputeId, sequence: 1, data: dispute });
    const refund = await call('POST', `${V1}/transactions/${transactionId}/refunds`, { amount: 10 });
    expect(refund.status).toBe(400);
    expect(refund.body).toMatchObject({
      responseCode: 400,
      message: expect.stringContaining(`dispute ${dispute.disputeId}`),
    });
    expect((await call('GET', `${V1}/disputes/${dispute.disputeId}`)).body).toEqual(dispute);
    const open = await call('GET', `${V1}/disputes?status=needs_response`);
    expect(open.body.items).toContainEqual(dispute);
    const unknown = await call('GET', `${V1}/disputes?status=open`);
    expect(unknown).toMatchObject({
      status: 400,
      body: { message: 'status must be one of inquiry, needs_response, under_review, won, lost' },
    });
  }, 60_000);
  test('a NOC: the test clock brings the notification of change forward, the backstop applies it, GET shows the corrected masked number with correctedBy noc, and payment_method.corrected reaches the receiver verified', async () => {
    const hooks = await receiver();
    const endpoint = await createEndpoint({
      url: hooks.url('/nocs'),
      enabledEvents: ['payment_method.corrected'],
    });
    hooks.secrets = [endpoint.secret];
    // The sandbox's NOC account: C01 at the 1st cut-off after settlement, the account now 000888888884.
    const payor = await createPayor({ paymentMethod: checkingInput({ accountNumber: '000888888883' }) });
    const methodPath = `${V1}/payors/${payor.payorId}/savedPaymentMethods/${payor.defaultPaymentMethodId}`;
    expect((await call('GET', methodPath)).body).toMatchObject({ maskedAccountNumber: '********8883' });
    const sold = await call('POST', `${V1}/transactions`, {
      profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`,
      amount: 20,
    });
    expect(sold).toMatchObject({ status: 201, body: { status: 'Approved', cleared: false } });
    // One banking day sooner each time: notices of the earlier tests may be due before it.
    let method = (await call('GET', methodPath)).body;
    for (let day = 0; day < 5 && method.correctedBy === undefined; day++) {
      await call('POST', `/rest/merchants/${MID}/settle-now`);
      expect((await fetch(`${runtime!.url}/__local/events/notices`, { method: 'POST' })).status).toBe(200);
      method = (await call('GET', methodPath)).body;
    }
    expect(method).toMatchObject({
      savedPaymentMethodId: payor.defaultPaymentMethodId,
      accountType: 'CHECKING',
      maskedAccountNumber: '********8884',
      correctedBy: 'noc',
      correctedAt: expect.any(String),
    });
    // Never the whole number.
    expect(JSON.stringify(method)).not.toContain('000888888884');
    const corrected = await until('payment_method.corrected delivered', () =>
      delivered(hooks, '/nocs').find((r) => r.event.type === 'payment_method.corrected'),
    );
    expect(corrected.verified).toBe(true);
    expect(corrected.event).toMatchObject({
      objectId: payor.defaultPaymentMethodId,
      data: { maskedAccountNumber: '********8884', correctedBy: 'noc' },
    });
    expect(delivered(hooks, '/nocs').filter((r) => r.event.type === 'payment_method.corrected')).toHaveLength(
      1,
    );
  }, 60_000);
});

test('no secret ever reaches the runtime log', async () => {
  expect(secrets.length).toBeGreaterThan(5);
  const log = readFileSync(join(runtime!.dataDir, 'runtime.log'), 'utf8');
  for (const secret of secrets) {
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice(6));
  }
});
