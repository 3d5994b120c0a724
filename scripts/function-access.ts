/**
 * What each function can do to AWS, read from its code (least privilege per function):
 * for every handler module (each file of a handler folder of lambdas/), the AWS SDK commands its
 * code can reach from `handler`, as the IAM actions they need, and the optional settings it reads
 * (`needed('…')`, lambdas/shared/config.ts), which name the resources (state machines, queues,
 * keys) those actions go to. CDK grants each function exactly these (lib/cdk/access.ts), and the
 * infra tests compare every synthesized role with them (test/infra/least-privilege.test.ts).
 *
 * How it reads the code: the TypeScript compiler's symbols, from the handler module outward. A
 * function, method, class, variable or object member the reachable code names is reachable in
 * turn (a class by its constructor and fields, not its methods); a method called through an
 * interface reaches that method of every class of lambdas/ that implements the interface; type
 * positions reach nothing. At the edge, a command class of an AWS SDK package (`new GetCommand`)
 * is a call of that service; a DynamoDB transaction's actions are the kinds of its items
 * (`Put`, `Update`, `Delete`, `ConditionCheck`) in the reachable code. One edge waits on the
 * routes: the route builder runs its `RunIdempotent` (the idempotency records' writes) only for a
 * route whose contract entry declares `idempotency`, so an argument for a parameter of that type
 * is reached only by a function that names such a route (its RouteCheck of
 * lambdas/generated/validators.ts carries the declaration); a GET, or a POST declared `'none'`,
 * holds none of those writes. A command the table below
 * does not know fails the analysis, as does `needed(x)` with anything but a string literal: the
 * answer is never a guess.
 *
 *   npm run access             writes lib/cdk/function-access.json
 *   npm run access -- --check  fails when that file is not what the code says
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

const REPO_ROOT = join(__dirname, '..');
const LAMBDAS = join(REPO_ROOT, 'lambdas');
/** The generated file CDK reads. */
export const ACCESS_FILE = join(REPO_ROOT, 'lib', 'cdk', 'function-access.json');

/** Folders of lambdas/ that are layers, not handler folders (README "Layers"). */
const LAYER_FOLDERS = new Set(['core', 'store', 'processor', 'domain', 'generated', 'shared']);

/** What one function's code can do. */
export interface FunctionAccess {
  /** IAM actions, `service:Action`, sorted. */
  readonly actions: string[];
  /** The optional settings it reads (keys of OPTIONAL_VARIABLES in lambdas/shared/config.ts), sorted. */
  readonly settings: string[];
}

/** The IAM actions of each AWS SDK command the functions send, by service prefix. */
const COMMAND_ACTIONS: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  dynamodb: {
    GetCommand: ['GetItem'],
    GetItemCommand: ['GetItem'],
    PutCommand: ['PutItem'],
    PutItemCommand: ['PutItem'],
    UpdateCommand: ['UpdateItem'],
    UpdateItemCommand: ['UpdateItem'],
    DeleteCommand: ['DeleteItem'],
    DeleteItemCommand: ['DeleteItem'],
    QueryCommand: ['Query'],
    ScanCommand: ['Scan'],
    BatchGetCommand: ['BatchGetItem'],
    BatchGetItemCommand: ['BatchGetItem'],
    BatchWriteCommand: ['BatchWriteItem'],
    BatchWriteItemCommand: ['BatchWriteItem'],
    // IAM authorizes a transaction item by item: its actions are its items' (TRANSACTION_ITEMS).
    TransactGetCommand: ['GetItem'],
    TransactGetItemsCommand: ['GetItem'],
    TransactWriteCommand: [],
    TransactWriteItemsCommand: [],
  },
  states: {
    StartExecutionCommand: ['StartExecution'],
    DescribeExecutionCommand: ['DescribeExecution'],
  },
  sqs: { SendMessageCommand: ['SendMessage'], SendMessageBatchCommand: ['SendMessage'] },
  ses: { SendEmailCommand: ['SendEmail'] },
  kms: { EncryptCommand: ['Encrypt'], DecryptCommand: ['Decrypt'] },
  secretsmanager: { GetSecretValueCommand: ['GetSecretValue'] },
};

/** The item kinds of a DynamoDB transaction and the action IAM checks for each. */
const TRANSACTION_ITEMS: Readonly<Record<string, string>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** The AWS SDK packages of each service prefix. */
const SDK_PACKAGES: readonly (readonly [RegExp, string])[] = [
  [/@aws-sdk[\\/](lib-dynamodb|client-dynamodb)[\\/]/, 'dynamodb'],
  [/@aws-sdk[\\/]client-sfn[\\/]/, 'states'],
  [/@aws-sdk[\\/]client-sqs[\\/]/, 'sqs'],
  [/@aws-sdk[\\/]client-sesv2[\\/]/, 'ses'],
  [/@aws-sdk[\\/]client-kms[\\/]/, 'kms'],
  [/@aws-sdk[\\/]client-secrets-manager[\\/]/, 'secretsmanager'],
];

/** Every handler module: the files of lambdas/' handler folders, as `folder/name`. */
export function handlerModules(): string[] {
  return readdirSync(LAMBDAS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !LAYER_FOLDERS.has(d.name))
    .flatMap((d) =>
      readdirSync(join(LAMBDAS, d.name))
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
        .map((f) => `${d.name}/${f.slice(0, -3)}`),
    )
    .sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(REPO_ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile) as { config: unknown };
  return ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT).options;
}

const isOurs = (file: string): boolean =>
  !file.includes(`${sep}node_modules${sep}`) &&
  (file.startsWith(LAMBDAS + sep) || file.startsWith(join(REPO_ROOT, 'contract') + sep));

/** The functions' access, by handler module (`groups/create-group`): read on a program of lambdas/ and contract/. */
function analyzeFunctions(handlers: readonly string[] = handlerModules()): Record<string, FunctionAccess> {
  const program = ts.createProgram(
    [...sourceFiles(LAMBDAS), ...sourceFiles(join(REPO_ROOT, 'contract'))],
    compilerOptions(),
  );
  const checker = program.getTypeChecker();
  const ourFiles = program.getSourceFiles().filter((f) => isOurs(f.fileName));
  const configFile = join(LAMBDAS, 'shared', 'config.ts');
  const httpFile = join(LAMBDAS, 'shared', 'http.ts');
  const routeCheckFile = join(LAMBDAS, 'shared', 'route-check.ts');

  // Classes of lambdas/ by the interfaces they implement and the classes they extend.
  const subtypes = new Map<ts.Symbol, ts.ClassLikeDeclaration[]>();
  const symbolOf = (node: ts.Node): ts.Symbol | undefined => {
    const symbol = checker.getSymbolAtLocation(node);
    return symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias
      ? checker.getAliasedSymbol(symbol)
      : symbol;
  };
  for (const file of ourFiles) {
    const visit = (node: ts.Node): void => {
      if (ts.isClassLike(node))
        for (const clause of node.heritageClauses ?? [])
          for (const type of clause.types) {
            const symbol = symbolOf(type.expression);
            if (symbol !== undefined) subtypes.set(symbol, [...(subtypes.get(symbol) ?? []), node]);
          }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  /** Whether `node` names `name` as declared in `file`. */
  const isDeclaredIn = (node: ts.Node, name: string, file: string): boolean => {
    const symbol = symbolOf(node);
    return (
      symbol?.name === name && (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName === file)
    );
  };
  /** Every class that implements or extends `symbol`, directly or through another. */
  const implementers = (symbol: ts.Symbol, seen = new Set<ts.Symbol>()): ts.ClassLikeDeclaration[] => {
    if (seen.has(symbol)) return [];
    seen.add(symbol);
    return (subtypes.get(symbol) ?? []).flatMap((cls) => {
      const own = cls.name === undefined ? undefined : symbolOf(cls.name);
      return [cls, ...(own === undefined ? [] : implementers(own, seen))];
    });
  };

  const analyzeOne = (handler: string): FunctionAccess => {
    const entry = program.getSourceFile(join(LAMBDAS, `${handler}.ts`));
    if (entry === undefined) throw new Error(`no module lambdas/${handler}.ts`);
    const commands = new Set<string>();
    const itemKinds = new Set<string>();
    const settings = new Set<string>();
    const visited = new Set<ts.Node>();
    const filesSeen = new Set<ts.SourceFile>();
    /**
     * The route builder runs its `RunIdempotent` (core/idempotency.ts `idempotent`, whose store
     * writes records) only for a route that declares `idempotency` (shared/http.ts `runKeyed`):
     * an argument for a parameter of that type is reached once the function names such a route,
     * and until then waits here.
     */
    let keyedRoute = false;
    const gated: ts.Node[] = [];

    const where = (node: ts.Node): string => {
      const file = node.getSourceFile();
      const { line } = file.getLineAndCharacterOfPosition(node.getStart());
      return `${relative(REPO_ROOT, file.fileName)}:${line + 1}`;
    };

    const reachDeclaration = (decl: ts.Node): void => {
      if (visited.has(decl)) return;
      visited.add(decl);
      const file = decl.getSourceFile();
      if (!filesSeen.has(file)) {
        filesSeen.add(file);
        // What a module runs when it loads.
        for (const statement of file.statements) if (ts.isExpressionStatement(statement)) walk(statement);
      }
      if (ts.isClassLike(decl)) {
        for (const member of decl.members)
          if (
            ts.isConstructorDeclaration(member) ||
            ts.isPropertyDeclaration(member) ||
            ts.isClassStaticBlockDeclaration(member)
          )
            walk(member);
        for (const clause of decl.heritageClauses ?? [])
          if (clause.token === ts.SyntaxKind.ExtendsKeyword)
            for (const type of clause.types) reach(type.expression);
        return;
      }
      if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) {
        // A member of an interface: the same member of every class of ours that implements it.
        const owner = decl.parent;
        const name = decl.name.getText();
        if (ts.isInterfaceDeclaration(owner)) {
          const symbol = symbolOf(owner.name);
          for (const cls of symbol === undefined ? [] : implementers(symbol))
            for (const member of cls.members)
              if (member.name !== undefined && member.name.getText() === name) reachDeclaration(member);
        }
        return;
      }
      if (ts.isMethodDeclaration(decl) && ts.isClassLike(decl.parent) && decl.parent.name !== undefined) {
        // A method may be overridden by a subclass of ours.
        const symbol = symbolOf(decl.parent.name);
        const name = decl.name.getText();
        for (const cls of symbol === undefined ? [] : implementers(symbol))
          for (const member of cls.members)
            if (member.name !== undefined && member.name.getText() === name) reachDeclaration(member);
      }
      if (
        ts.isFunctionLike(decl) ||
        ts.isVariableDeclaration(decl) ||
        ts.isPropertyDeclaration(decl) ||
        ts.isPropertyAssignment(decl) ||
        ts.isShorthandPropertyAssignment(decl) ||
        ts.isBindingElement(decl) ||
        ts.isEnumDeclaration(decl)
      )
        walk(decl);
    };

    const reach = (node: ts.Node): void => {
      const symbol = symbolOf(node);
      for (const decl of symbol?.declarations ?? []) {
        const file = decl.getSourceFile().fileName;
        if (isOurs(file)) {
          if (!keyedRoute && declaresIdempotency(decl)) {
            keyedRoute = true;
            for (const arg of gated.splice(0)) walk(arg);
          }
          reachDeclaration(decl);
          continue;
        }
        const service = SDK_PACKAGES.find(([pattern]) => pattern.test(file))?.[1];
        if (service !== undefined && symbol!.name.endsWith('Command') && ts.isClassLike(decl)) {
          if (COMMAND_ACTIONS[service]?.[symbol!.name] === undefined)
            throw new Error(
              `${where(node)}: ${service} ${symbol!.name} is not in scripts/function-access.ts COMMAND_ACTIONS; add its IAM actions`,
            );
          commands.add(`${service}:${symbol!.name}`);
        }
      }
    };

    /**
     * Whether this declaration is a route of lambdas/generated/validators.ts that declares
     * `idempotency` (`routeCheck(id, body, query, idempotency)`, from the contract entry's).
     */
    const declaresIdempotency = (decl: ts.Node): boolean => {
      if (!ts.isVariableDeclaration(decl) || decl.initializer === undefined) return false;
      const call = decl.initializer;
      if (!ts.isCallExpression(call) || !isDeclaredIn(call.expression, 'routeCheck', routeCheckFile))
        return false;
      const signature = checker.getResolvedSignature(call);
      const index = signature?.parameters.findIndex((p) => p.name === 'idempotency') ?? -1;
      const arg = index < 0 ? undefined : call.arguments[index];
      return arg !== undefined && !(ts.isIdentifier(arg) && arg.text === 'undefined');
    };

    const isNeeded = (call: ts.CallExpression): boolean =>
      isDeclaredIn(call.expression, 'needed', configFile);

    function walk(node: ts.Node): void {
      if (
        ts.isTypeNode(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isImportDeclaration(node) ||
        ts.isExportDeclaration(node)
      )
        return;
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) reach(node);
      if (ts.isShorthandPropertyAssignment(node)) {
        const value = checker.getShorthandAssignmentValueSymbol(node);
        for (const decl of value?.declarations ?? [])
          if (isOurs(decl.getSourceFile().fileName)) reachDeclaration(decl);
      }
      if (
        (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
        ts.isIdentifier(node.name) &&
        node.name.text in TRANSACTION_ITEMS
      )
        itemKinds.add(node.name.text);
      if (ts.isCallExpression(node) && !keyedRoute) {
        const signature = checker.getResolvedSignature(node);
        const parameters = signature?.getDeclaration()?.parameters ?? [];
        const held = node.arguments.filter((_, i) => {
          const parameter = parameters[i];
          return (
            parameter?.type !== undefined &&
            ts.isTypeReferenceNode(parameter.type) &&
            isDeclaredIn(parameter.type.typeName, 'RunIdempotent', httpFile)
          );
        });
        if (held.length > 0) {
          gated.push(...held);
          ts.forEachChild(node, (child) => (held.includes(child as ts.Expression) ? undefined : walk(child)));
          return;
        }
      }
      if (ts.isCallExpression(node) && isNeeded(node)) {
        const [arg] = node.arguments;
        if (arg === undefined || !ts.isStringLiteralLike(arg))
          throw new Error(
            `${where(node)}: needed() takes a string literal, so that the analysis can read it`,
          );
        settings.add(arg.text);
      }
      ts.forEachChild(node, walk);
    }

    reachDeclaration(entry);
    for (const statement of entry.statements) walk(statement);

    const actions = new Set<string>();
    for (const command of commands) {
      const [service, name] = command.split(':') as [string, string];
      for (const action of COMMAND_ACTIONS[service]![name]!) actions.add(`${service}:${action}`);
      if (name.startsWith('TransactWrite'))
        for (const kind of itemKinds) actions.add(`dynamodb:${TRANSACTION_ITEMS[kind]!}`);
    }
    return { actions: [...actions].sort(), settings: [...settings].sort() };
  };

  return Object.fromEntries(handlers.map((h) => [h, analyzeOne(h)]));
}

/** The generated file's text: one entry per handler module, sorted, formatted as Prettier would. */
export async function accessFileText(access: Record<string, FunctionAccess>): Promise<string> {
  // Loaded here, not at the top: Jest (least-privilege.test.ts) cannot load Prettier's ESM.
  const { format, resolveConfig } = await import('prettier');
  const options = (await resolveConfig(ACCESS_FILE)) ?? {};
  return format(JSON.stringify(access), { ...options, filepath: ACCESS_FILE });
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const text = await accessFileText(analyzeFunctions());
  if (check) {
    let current = '';
    try {
      current = readFileSync(ACCESS_FILE, 'utf8');
    } catch {
      // missing: stale
    }
    if (current !== text) {
      console.error(
        `${relative(REPO_ROOT, ACCESS_FILE)} is not what the functions' code does: run npm run access and commit it`,
      );
      process.exitCode = 1;
      return;
    }
    console.log(`${relative(REPO_ROOT, ACCESS_FILE)} is current`);
    return;
  }
  writeFileSync(ACCESS_FILE, text);
  console.log(`wrote ${relative(REPO_ROOT, ACCESS_FILE)}`);
}

if (require.main === module) void main();
