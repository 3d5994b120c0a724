/**
 * The local runtime's state machines pass aws-local-stepfunctions' definition check (its ASL
 * schema and its paths) with the substitutions the runtime gives them, on each stage. The runtime
 * itself starts them unchecked (lib/local/processing.ts): the check compiles a JSON schema, a
 * third of a second of CPU at every start, and the files only change with the code.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stages } from '#contract/stage';
import { localMachineFiles, localSubstitutions, type LocalMachineFile } from '#lib/local/machines';
import { LocalStepFunctions } from '#lib/local/step-functions';

const ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:local-check';

const checked = (file: LocalMachineFile): LocalStepFunctions =>
  new LocalStepFunctions(file.definition, ARN, localSubstitutions(file), {}, { validate: true });

describe.each(stages)('on %s', (stage) => {
  const machines = localMachineFiles(stage);

  test.each(Object.keys(machines) as (keyof typeof machines)[])(
    'the %s definition, as the runtime substitutes it, is valid ASL',
    (name) => {
      expect(() => checked(machines[name])).not.toThrow();
    },
  );
});

test('a definition whose state names a missing next state fails the check', () => {
  const { processGroup } = localMachineFiles('dev');
  const definition = JSON.parse(readFileSync(processGroup.definition, 'utf8')) as {
    StartAt: string;
    States: Record<string, { Next?: string; End?: boolean }>;
  };
  const start = definition.States[definition.StartAt]!;
  delete start.End;
  start.Next = 'NoSuchState';
  const broken = join(mkdtempSync(join(tmpdir(), 'asl-')), 'broken.asl.json');
  writeFileSync(broken, JSON.stringify(definition));

  expect(() => checked({ ...processGroup, definition: broken })).toThrow(/invalid/);
  // Unchecked, as the runtime starts it, the same file is taken.
  expect(
    () => new LocalStepFunctions(broken, ARN, localSubstitutions(processGroup), {}, { validate: false }),
  ).not.toThrow();
});
