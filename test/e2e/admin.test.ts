/** The operator command against the running local runtime: register, grant, revoke. */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { call, futureDate, OTHER, tokenFor } from '#support/api';
import { localToolCommand } from '#lib/local/runtime-bundle';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

const admin = (...args: string[]) => {
  const [command, commandArgs] = localToolCommand('admin', [...args, '--local']);
  return run(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR! },
  });
};

test('register a merchant with both MID forms, grant a client, revoke it', async () => {
  const mid = `3235009${String(Date.now()).slice(-4)}`;
  const mid8 = `2359${String(Date.now()).slice(-4)}`;
  const token = await tokenFor(OTHER);
  const path = `/rest/merchants/${mid8}/groups`;
  expect((await call('GET', path, undefined, { token })).status).toBe(403);

  await admin('register-merchant', '--mid', mid, '--mid8', mid8, '--name', 'Ogdenville Middle');
  expect((await call('GET', path, undefined, { token })).status).toBe(403);

  const granted = await admin('grant', '--client', 'local-other', '--mid', mid8);
  expect(granted.stdout).toContain(mid);
  const created = await call(
    'POST',
    `/rest/merchants/${mid}/groups`,
    { servicePayId: mid8, scheduleDate: futureDate(), scheduleHour: 1, locationId: 1 },
    { token },
  );
  expect(created.status).toBe(201);
  expect(created.body.servicePayId).toBe(mid);
  expect((await call('GET', path, undefined, { token })).status).toBe(200);
  const grants = JSON.parse((await admin('grants', '--client', 'local-other')).stdout);
  expect(grants).toEqual(
    expect.arrayContaining([{ merchantId: mid, shortId: mid8, name: 'Ogdenville Middle' }]),
  );

  await admin('revoke', '--client', 'local-other', '--mid', mid);
  // The e2e runtime caches no grants (AUTHZ_CACHE_SECONDS=0): the revocation holds at once.
  expect((await call('GET', path, undefined, { token })).status).toBe(403);
  expect((await call('GET', `/rest/merchants/${mid}/groups`, undefined, { token })).status).toBe(403);
});

test('bad usage fails with a message, not a stack', async () => {
  await expect(admin('grant', '--mid', '32350000001')).rejects.toMatchObject({
    stderr: expect.stringContaining('--client is required'),
  });
  await expect(admin('register-merchant', '--mid', '123', '--name', 'x')).rejects.toMatchObject({
    stderr: expect.stringContaining('11 digits'),
  });
});
