/**
 * Text a request brings is well-formed Unicode sent as UTF-8 (docs/decisions.md "Text is
 * well-formed Unicode"), in every string of a JSON body, values and keys alike, and in the query:
 *
 * - no lone surrogate (U+D800-U+DFFF without its pair, which JSON's `\ud800` escape makes): UTF-8
 *   cannot hold one, strict JSON parsers refuse a list that carries one, and DynamoDB may refuse
 *   the write;
 * - no U+FFFD, the replacement character a UTF-8 decoder leaves where the bytes were not UTF-8:
 *   the local gateway decodes so, as API Gateway passes a text body on, so it is the one trace of
 *   invalid bytes a function sees (a base64 body is decoded the same way, http-request.ts).
 */
import type { Problem } from './validation';
import { fieldName, MAX_PROBLEMS } from './validation';

const LONE_SURROGATE = /\p{Cs}/u;
const MALFORMED = /[\p{Cs}\uFFFD]/u;

/** Why a text is not well-formed, or undefined when it is. */
export function malformation(text: string): string | undefined {
  if (!MALFORMED.test(text)) return undefined;
  return LONE_SURROGATE.test(text)
    ? 'it holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair), which is not Unicode text'
    : 'it holds U+FFFD, the replacement character left where bytes were not valid UTF-8 (send the request as UTF-8)';
}

/** A value of the parsed body and where it is: its parent's entry and its key there. */
interface Node {
  value: unknown;
  parent?: Node;
  key?: string | number;
}

/** `payments[3].orderId`, from the node's chain of keys (`root` for the value itself). */
function nameOf(node: Node, root: string): string {
  const keys: (string | number)[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.push(n.key);
  const pointer = keys
    .reverse()
    .map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
  return fieldName(pointer) || root;
}

/**
 * The strings of a parsed JSON value (`root` names it: "body") that are not well-formed, each a
 * problem naming its field (`payments[3].orderId`, or the object whose key it is), at most
 * MAX_PROBLEMS. Walked with a stack of its own, not recursion: JSON.parse takes any depth.
 */
export function malformedTextIn(value: unknown, root: string): Problem[] {
  const problems: Problem[] = [];
  const stack: Node[] = [{ value }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const why = malformation(v);
      if (why !== undefined) {
        const field = nameOf(node, root);
        problems.push({ field, message: `${field} is not well-formed text: ${why}` });
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: node, key: i });
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const why = malformation(key);
        if (why !== undefined) {
          const field = nameOf(node, root);
          problems.push({ field, message: `${field} has a key that is not well-formed text: ${why}` });
        } else stack.push({ value: child, parent: node, key });
      }
    }
  }
  return problems.slice(0, MAX_PROBLEMS);
}
