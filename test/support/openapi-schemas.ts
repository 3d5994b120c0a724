/**
 * The schemas of openapi.json as ajv validators: what an integrator's validator would check
 * against the published document (OpenAPI 3.0 Schema Objects; `nullable` is an ajv keyword).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import document from '../../openapi.json';

type Json = Record<string, unknown>;
const DOC_ID = 'openapi.json';

/** `~` and `/` escaped for a JSON pointer. */
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export const openApi = document as unknown as {
  paths: Record<string, Record<string, Json>>;
  components: { responses: Record<string, Json>; schemas: Record<string, Json> };
};

// multipleOf 0.01 in binary floating point would refuse 19.99 (see the document's overview).
const ajv = new Ajv({ strict: false, allErrors: true, multipleOfPrecision: 6 });
addFormats(ajv);
ajv.addSchema({ ...document, $id: DOC_ID });

const compiled = new Map<string, ValidateFunction>();

/** The validator of the schema at `pointer` (a JSON pointer into openapi.json). */
export function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/** The pointer of an operation's response schema for `status`, following a shared response's $ref. */
export function responseSchemaPointer(path: string, method: string, status: string): string | undefined {
  const response = openApi.paths[path]?.[method]?.responses as Record<string, Json> | undefined;
  const entry = response?.[status];
  if (!entry) return undefined;
  const ref = entry.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/responses/', '');
    return openApi.components.responses[name]?.content
      ? `/components/responses/${escape(name)}/content/application~1json/schema`
      : undefined;
  }
  if (!entry.content) return undefined;
  return `/paths/${escape(path)}/${method}/responses/${status}/content/application~1json/schema`;
}

/** The pointer of an operation's request body schema. */
export const requestSchemaPointer = (path: string, method: string): string =>
  `/paths/${escape(path)}/${method}/requestBody/content/application~1json/schema`;

/** ajv's problems as one line each, for failure messages. */
export const problemsOf = (validate: ValidateFunction): string[] =>
  (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
