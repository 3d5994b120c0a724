/**
 * Issue 12 defect: a client generated with openapi-typescript could not create a payor. The
 * document gave `CreatePayorRequest.paymentMethod` as `{type: object}` with the method schema laid
 * over it by `allOf`, so the generated type was `Record<string, never>` & the method, and a card
 * failed with TS2322. test/support/fixtures/create-payor-client.ts types a card and a bank account with
 * the generated types; this compiles it.
 */
import { join } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '../..');

test('a card and a bank account compile as CreatePayor bodies of the generated client types', () => {
  const configPath = join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram([join(root, 'test/support/fixtures/create-payor-client.ts')], {
    ...options,
    types: [],
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(problems).toEqual([]);
}, 60_000);
