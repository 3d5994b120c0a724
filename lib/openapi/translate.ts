/**
 * Contract schemas → OpenAPI 3.0 Schema Objects. Translated, not copied: the ajv keyword
 * `maxDecimals: 2` becomes `multipleOf: 0.01`, and keywords OpenAPI 3.0 lacks (`propertyNames`,
 * `$comment`, ...) are dropped (a `propertyNames` limit is kept as words in the description).
 */
import { ref, type JsonSchema, type SchemaObject } from './types';

/** Schema Object keywords of OpenAPI 3.0.3 kept as they are (subschema keywords are walked). */
const KEPT_KEYWORDS = new Set([
  'title',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'type',
  'description',
  'format',
  'default',
  'nullable',
  'readOnly',
  'writeOnly',
  'example',
  'deprecated',
]);

/** The ajv keyword `noCardNumber` in words (docs/decisions.md "Card numbers in free text"). */
const CARD_NUMBER_NOTE =
  "Must not contain a card number (a Luhn-valid 13-19 digit run with a card brand's prefix, however its groups are separated): 400.";

/** `maxDecimals: n` → `multipleOf: 10^-n` (0.01 for money). */
const decimalStep = (decimals: number): number => Number(`1e-${decimals}`);

/**
 * An OpenAPI 3.0 Schema Object equivalent to a validator's JSON Schema, as far as OpenAPI can say
 * it. `refFor` names subschemas that are emitted as components of their own (a `$ref` replaces
 * them); the root is always translated. The input is never modified.
 */
export function toOpenApiSchema(
  schema: JsonSchema,
  refFor: (subschema: object) => string | undefined = () => undefined,
): SchemaObject {
  const sub = (value: unknown): SchemaObject => {
    const name = typeof value === 'object' && value !== null ? refFor(value) : undefined;
    return name !== undefined ? ref(name) : toOpenApiSchema(value as JsonSchema, refFor);
  };
  const out: SchemaObject = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case 'maxDecimals':
        out.multipleOf = decimalStep(value as number);
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, sub(v)]));
        break;
      case 'items':
        // A tuple (array form) has no OpenAPI 3.0 equivalent: any of the listed item schemas.
        out.items = Array.isArray(value) ? { anyOf: value.map(sub) } : sub(value);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : sub(value);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[keyword] = (value as unknown[]).map(sub);
        break;
      case 'not':
        out.not = sub(value);
        break;
      case 'const':
        out.enum = [value];
        break;
      case 'examples':
        if (Array.isArray(value) && value.length > 0) out.example = value[0];
        break;
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((t) => t !== 'null');
          if (types.length !== value.length) out.nullable = true;
          if (types.length === 1) out.type = types[0];
        } else {
          out.type = value;
        }
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        // Draft 6+ numbers; OpenAPI 3.0 (draft 4) has booleans next to minimum/maximum.
        if (typeof value === 'number') {
          out[keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[keyword] = true;
        } else {
          out[keyword] = value;
        }
        break;
      case 'propertyNames': {
        const names = value as {
          maxLength?: number;
          pattern?: string;
          not?: { enum?: readonly string[] };
          noCardNumber?: boolean;
        };
        if (names.maxLength !== undefined) notes.push(`Keys are at most ${names.maxLength} characters.`);
        if (names.pattern !== undefined) notes.push(`Keys match \`${names.pattern}\`.`);
        if (names.not?.enum !== undefined) {
          notes.push(`These keys are reserved (400): ${names.not.enum.map((n) => `\`${n}\``).join(', ')}.`);
        }
        if (names.noCardNumber === true) notes.push(CARD_NUMBER_NOTE.replace('Must', 'Keys must'));
        break;
      }
      case 'noCardNumber':
        // Said once: free text's own description already says "no card number".
        if (
          value === true &&
          !/card number/.test(String((schema as { description?: unknown }).description ?? ''))
        )
          notes.push(CARD_NUMBER_NOTE);
        break;
      case '$ref':
        throw new Error('validator schemas with $ref cannot be translated; inline the subschema');
      default:
        if (KEPT_KEYWORDS.has(keyword) || keyword.startsWith('x-')) {
          out[keyword] = Array.isArray(value) ? [...(value as unknown[])] : value;
        }
      // Anything else ($schema, $id, $comment, definitions, ajv keywords...) has no place here.
    }
  }
  if (notes.length > 0) {
    out.description = [out.description, ...notes].filter((s) => typeof s === 'string' && s !== '').join(' ');
  }
  return out;
}
