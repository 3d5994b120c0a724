/**
 * `npm start`'s lifecycle: one ready line (naming the docs page and the seeded client), no metrics
 * JSON on its console; Ctrl-C (SIGINT) stops everything and exits 0; even a
 * killed runtime leaves no DynamoDB Local (Java) behind: its watchdog ends it.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { launchLocalRuntime } from '#lib/local/launcher';
import { sleep } from '#shared/clock';

/** Whether something accepts connections on this loopback port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

function dynamoPort(dataDir: string): number {
  const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
    dynamodbEndpoint: string;
  };
  return Number(new URL(runtime.dynamodbEndpoint).port);
}

async function closedWithin(port: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(250)) {
    if (!(await listening(port))) return true;
  }
  return false;
}

test('one ready line naming the docs page and the seeded client; an hourly tick prints no metrics JSON; Ctrl-C stops the API and DynamoDB Local and exits 0', async () => {
  const runtime = await launchLocalRuntime({ dataDirPrefix: 'sps-e2e' });
  let output: string;
  let ticked: number;
  let port: number;
  let dynamoListening: boolean;
  try {
    // The hourly tick's stuck-groups metric is an EMF line in the cloud; on a person's console, none.
    const tick = await fetch(`${runtime.url}/__local/events/hourly`, {
      method: 'POST',
      body: JSON.stringify({ time: '2000-01-01T00:00:00Z' }),
    });
    ticked = tick.status;
    await tick.json();
    output = runtime.output();
    port = dynamoPort(runtime.dataDir);
    dynamoListening = await listening(port);
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  expect((await runtime.stop('SIGINT')).exitCode).toBe(0);
  expect(output.match(/ready at/g)).toHaveLength(1);
  expect(output).toContain(
    `ready at ${runtime.url} (docs: ${runtime.url}/docs, client: local-tester, e-mails: ${runtime.sesUrl})`,
  );
  expect(ticked).toBe(200);
  expect(output).not.toMatch(/CloudWatchMetrics|"_aws"/);
  expect(dynamoListening).toBe(true);
  expect(await closedWithin(port, 5000)).toBe(true);
  expect(await listening(Number(new URL(runtime.url).port))).toBe(false);
});

test('a killed runtime leaves no DynamoDB Local behind', async () => {
  const runtime = await launchLocalRuntime({ dataDirPrefix: 'sps-e2e' });
  const port = dynamoPort(runtime.dataDir);
  const { pid } = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8')) as { pid: number };
  expect(await listening(port)).toBe(true);
  // The runtime process itself dies without a chance to clean up.
  process.kill(pid, 'SIGKILL');
  await runtime.stop('SIGTERM');
  // The watchdog's pipe from the runtime closed with it: Java is stopped.
  expect(await closedWithin(port, 10_000)).toBe(true);
});
