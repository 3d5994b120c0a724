/**
 * A small simulation of IAM's evaluation of identity-based policies, for the statements a stack
 * synthesizes: an explicit Deny wins, else an Allow grants, else the request is denied. Actions and
 * resources match with IAM's wildcards (`*`, `?`; actions case-insensitively); conditions support
 * the operators the service's policies use (StringEquals, StringLike, StringNotEquals,
 * StringNotLike, ArnLike, ArnEquals, Bool), with the `ForAnyValue:`/`ForAllValues:` set qualifiers
 * for multivalued keys such as `dynamodb:LeadingKeys`. An operator it does not know throws: a
 * statement it cannot read is never taken as granting or denying.
 */
import type { Statement } from './synth';
import { flatten } from './synth';

interface IamRequest {
  readonly action: string;
  /** The resource's ARN, in the notation of `flatten` (references as `${Id.Arn}`). */
  readonly resource: string;
  /** Condition keys of the request; a multivalued key is an array. */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
}

type Decision = 'allowed' | 'explicitly denied' | 'implicitly denied';

const pattern = (glob: string, flags = ''): RegExp =>
  new RegExp(
    `^${glob
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
    flags,
  );

const matchesAny = (value: string, globs: readonly string[], flags = ''): boolean =>
  globs.some((g) => pattern(g, flags).test(value));

type Operator = (value: string, expected: readonly string[]) => boolean;

const OPERATORS: Readonly<Record<string, Operator>> = {
  StringEquals: (v, e) => e.includes(v),
  StringNotEquals: (v, e) => !e.includes(v),
  StringLike: (v, e) => matchesAny(v, e),
  StringNotLike: (v, e) => !matchesAny(v, e),
  ArnEquals: (v, e) => e.includes(v),
  ArnLike: (v, e) => matchesAny(v, e),
  Bool: (v, e) => e.map((x) => x.toLowerCase()).includes(v.toLowerCase()),
};

function conditionHolds(
  condition: Record<string, Record<string, unknown>> | undefined,
  context: IamRequest['context'] = {},
): boolean {
  for (const [qualified, keys] of Object.entries(condition ?? {})) {
    const [qualifier, name] = qualified.includes(':') ? qualified.split(':') : [undefined, qualified];
    const operator = OPERATORS[name!];
    if (operator === undefined) throw new Error(`condition operator ${qualified} is not simulated`);
    for (const [key, raw] of Object.entries(keys)) {
      const expected = [raw].flat().map(flatten);
      const given = context[key];
      const values = given === undefined ? [] : [given].flat();
      let holds: boolean;
      if (qualifier === 'ForAnyValue') holds = values.some((v) => operator(v, expected));
      else if (qualifier === 'ForAllValues') holds = values.every((v) => operator(v, expected));
      else if (qualifier === undefined) holds = values.length === 1 && operator(values[0]!, expected);
      else throw new Error(`condition qualifier ${qualifier} is not simulated`);
      if (!holds) return false;
    }
  }
  return true;
}

const applies = (statement: Statement, request: IamRequest): boolean => {
  if ('NotAction' in statement || 'NotResource' in statement || 'Principal' in statement)
    throw new Error('NotAction, NotResource and Principal are not simulated');
  const actions = [statement.Action].flat();
  const resources = [statement.Resource].flat().map(flatten);
  return (
    matchesAny(request.action, actions, 'i') &&
    matchesAny(request.resource, resources) &&
    conditionHolds(
      statement.Condition as Record<string, Record<string, unknown>> | undefined,
      request.context,
    )
  );
};

/** IAM's decision on a request by a role whose identity policies hold `statements`. */
export function evaluate(statements: readonly Statement[], request: IamRequest): Decision {
  const matching = statements.filter((s) => applies(s, request));
  if (matching.some((s) => s.Effect === 'Deny')) return 'explicitly denied';
  if (matching.some((s) => s.Effect === 'Allow')) return 'allowed';
  return 'implicitly denied';
}
