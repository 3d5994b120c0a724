/**
 * The key idempotency keys are kept by (lib/cdk/idempotency-key.ts): one Secrets Manager secret per
 * stage, generated, never rotated, kept in prod; only the functions whose code reads it (the routes
 * that take an Idempotency-Key) have its ARN and may read it, and nothing else about it.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Stage } from '#contract/stage';
import { routeList } from '#contract/routes/index';
import { readsSetting } from '#lib/cdk/access';
import { idempotencyOf } from '../../scripts/generate-validators';
import {
  actionsOf,
  flatten,
  functionName,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  stageTemplateOf,
  SYNTH_TIMEOUT_MS,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  test('one generated secret, without rotation, kept in prod', () => {
    const secrets = resourcesOf(template, 'AWS::SecretsManager::Secret');
    const found = Object.entries(secrets).filter(([id]) => id.startsWith('IdempotencyHashKey'));
    expect(found).toHaveLength(1);
    const [, secret] = found[0]!;
    expect(props(secret).GenerateSecretString).toMatchObject({
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    expect(secret.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    expect(resourcesOf(template, 'AWS::SecretsManager::RotationSchedule')).toEqual({});
  });

  test('exactly the functions of keyed routes have the secret and read it, nothing more', () => {
    const [secretId] = Object.keys(resourcesOf(template, 'AWS::SecretsManager::Secret')).filter((id) =>
      id.startsWith('IdempotencyHashKey'),
    );
    const keyed = new Set(
      routeList
        .filter((r) => idempotencyOf(r) !== undefined && !(stage === 'prod' && r.nonProdOnly))
        .map((r) => r.handler),
    );
    const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function'));
    const holders = functions.flatMap((fn) => {
      const variables =
        (props(fn).Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      const reads = roleStatements(template, roleIdOf(fn)).filter((s) =>
        actionsOf(s).some((a) => a.startsWith('secretsmanager:')),
      );
      if (variables.IDEMPOTENCY_HASH_KEY === undefined && reads.length === 0) return [];
      expect(flatten(variables.IDEMPOTENCY_HASH_KEY)).toBe(`secretsmanager:\${${secretId}}`);
      expect(reads.map((s) => [s.Effect, actionsOf(s), resourcesOfStatement(s)])).toEqual([
        ['Allow', ['secretsmanager:GetSecretValue'], [`\${${secretId}}`]],
      ]);
      return [String(props(fn).FunctionName)];
    });
    expect(holders.sort()).toEqual([...keyed].map((h) => functionName(stage, h)).sort());
    for (const handler of keyed)
      expect([handler, readsSetting(handler, 'idempotencyHashKey')]).toEqual([handler, true]);
  });
});
