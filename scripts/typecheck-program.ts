/**
 * The repository's TypeScript program as `tsc --noEmit` builds it (tsconfig.json's files and
 * options), and its diagnostics as tsc reports them. `npm run checks` typechecks on it and then
 * runs the functions' access check (scripts/function-access.ts) on the same program: building
 * the program (parsing and binding some 5,000 files, most of them the packages' types) is about
 * half of a typecheck's CPU, and the access check's own program was that work again.
 */
import { join } from 'node:path';
import ts from 'typescript';

const REPO_ROOT = join(__dirname, '..');

export interface Typecheck {
  program: ts.Program;
  /** Every error and warning tsc would print, in its order. */
  diagnostics: readonly ts.Diagnostic[];
  /** As tsc prints them (with colours and context on a terminal). */
  report(): string;
}

export function typecheck(): Typecheck {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(REPO_ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const diagnostics = ts.sortAndDeduplicateDiagnostics(ts.getPreEmitDiagnostics(program));
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => REPO_ROOT,
    getNewLine: () => '\n',
  };
  return {
    program,
    diagnostics,
    report: () =>
      process.stdout.isTTY
        ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host)
        : ts.formatDiagnostics(diagnostics, host),
  };
}
