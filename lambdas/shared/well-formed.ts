/**
 * Text a request brings is well-formed Unicode sent as UTF-8 (docs/decisions.md "Text is
 * well-formed Unicode"), in every string of a JSON body, values and keys alike (no query value or
 * header is stored: each is a pattern, an enum or a search input):
 *
 * - no lone surrogate (U+D800-U+DFFF without its pair, which JSON's `\ud800` escape makes): UTF-8
 *   cannot hold one, strict JSON parsers refuse a list that carries one, and DynamoDB may refuse
 *   the write;
 * - no U+FFFD, the replacement character a UTF-8 decoder leaves where the bytes were not UTF-8:
 *   the local gateway decodes so, as API Gateway passes a text body on, so it is the one trace of
 *   invalid bytes a function sees (a base64 body is decoded the same way, http-request.ts).
 *
 * Every API function carries this (bundle budget): kept small.
 */
import { fieldName, MAX_PROBLEMS, ValidationError, type Problem } from './validation';

/** A value of the parsed JSON, its parent and its key there (a chain: any depth, no copies). */
type Node = [value: unknown, parent?: Node, key?: string, depth?: number];

/**
 * Deeper than any body the API takes (its schemas nest a few levels): a deeper one is refused here,
 * before anything walks it by recursion (a key's request hash, a handler's own check).
 */
export const MAX_BODY_DEPTH = 64;

/** `payments[3].orderId` for the node (`root` for the value itself). */
function nameOf(node: Node, root: string): string {
  let pointer = '';
  for (let n: Node | undefined = node; n?.[1]; n = n[1])
    pointer = `/${n[2]!.replace(/~/g, '~0').replace(/\//g, '~1')}${pointer}`;
  return fieldName(pointer) || root;
}

/**
 * Throws a 400 (ValidationError) listing the strings of a parsed JSON value (`root` names it:
 * "body") that are not well-formed, each naming its field (`payments[3].orderId`, or the
 * object whose key it is), and the values nested deeper than MAX_BODY_DEPTH, at most
 * MAX_PROBLEMS. Walked with a stack of its own, not recursion: JSON.parse takes any depth.
 */
export function refuseMalformedText(value: unknown, root: string): void {
  const problems: Problem[] = [];
  /** Whether `text` is well-formed; a problem when not (`what` says it is a key). */
  const wellFormed = (text: string, node: Node, what = ''): boolean => {
    const found = /[\p{Cs}\uFFFD]/u.exec(text);
    if (!found) return true;
    const field = nameOf(node, root);
    const why = found[0] === '\uFFFD' ? 'U+FFFD: bytes not UTF-8' : 'a lone surrogate';
    problems.push({ field, message: `${field}${what} is not well-formed text (${why})` });
    return false;
  };
  const stack: Node[] = [[value, undefined, undefined, 0]];
  for (let node; (node = stack.pop()) && problems.length < MAX_PROBLEMS;) {
    const v = node[0];
    const depth = node[3]!;
    if (typeof v === 'string') wellFormed(v, node);
    else if (typeof v === 'object' && v !== null && depth >= MAX_BODY_DEPTH) {
      const field = nameOf(node, root);
      problems.push({ field, message: `${field} is nested more than ${MAX_BODY_DEPTH} levels deep` });
    } else if (typeof v === 'object' && v !== null)
      for (const [key, child] of Object.entries(v).reverse())
        if (wellFormed(key, node, ' has a key that')) stack.push([child, node, key, depth + 1]);
  }
  if (problems.length > 0) throw new ValidationError(problems.slice(0, MAX_PROBLEMS));
}
