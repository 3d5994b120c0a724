/**
 * Issue 22, item 6: `npm run admin -- reconcile --stage …` invokes the stage's reconciliation
 * function instead of running the sweeper on the operator's machine, and `grant`/`revoke` name the
 * caller's AWS identity in their audit record (bin/admin-cloud.ts). Lambda and STS mocked.
 */
import { InvokeCommand, LambdaClient, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { cloudActor, invokeReconciliation, reconciliationFunctionName } from '../../bin/admin-cloud';

const lambdaMock = mockClient(LambdaClient);
const stsMock = mockClient(STSClient);
beforeEach(() => {
  lambdaMock.reset();
  stsMock.reset();
});

/** A function's answer as the SDK hands it over (its bytes; the client adds the blob helpers). */
const encode = (value: unknown) =>
  new TextEncoder().encode(JSON.stringify(value)) as unknown as InvokeCommandOutput['Payload'];
const report = { since: '2026-11-25T00:00:00.000Z', unhealed: 0, healed: 2 };

test('reconcile --stage prod invokes the stage’s reconciliation function with the window, synchronously, and answers its report', async () => {
  lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: encode(report) });
  const answer = await invokeReconciliation(new LambdaClient({ region: 'eu-west-1' }), 'prod', {
    since: '2026-11-25T00:00:00.000Z',
    staleMinutes: 45,
  });
  expect(answer).toEqual(report);
  const calls = lambdaMock.commandCalls(InvokeCommand);
  expect(calls).toHaveLength(1);
  const input = calls[0]!.args[0].input;
  expect(input.FunctionName).toBe('scheduled-payments-prod-scheduled_reconcile');
  expect(input.InvocationType).toBe('RequestResponse');
  expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual({
    since: '2026-11-25T00:00:00.000Z',
    staleMinutes: 45,
  });
});

test('the function name follows the naming rule of every function of the stage', () => {
  expect(reconciliationFunctionName('dev')).toBe('scheduled-payments-dev-scheduled_reconcile');
});

test('a function error is the command’s error, with the function’s message', async () => {
  lambdaMock.on(InvokeCommand).resolves({
    StatusCode: 200,
    FunctionError: 'Unhandled',
    Payload: encode({ errorType: 'Error', errorMessage: 'since nope is not an ISO-8601 time' }),
  });
  await expect(
    invokeReconciliation(new LambdaClient({ region: 'eu-west-1' }), 'dev', { since: 'nope' }),
  ).rejects.toThrow(
    'scheduled-payments-dev-scheduled_reconcile failed (Unhandled): since nope is not an ISO-8601 time',
  );
});

test('the audit record’s actor in the cloud is the caller’s ARN (STS GetCallerIdentity)', async () => {
  const arn = 'arn:aws:sts::222222222222:assumed-role/payments-admin/jane';
  stsMock.on(GetCallerIdentityCommand).resolves({ Arn: arn, Account: '222222222222', UserId: 'AROA:jane' });
  expect(await cloudActor(new STSClient({ region: 'eu-west-1' }))).toBe(arn);
});
