/**
 * Named schema components: each contract schema listed in contract/schemas/index.ts is emitted
 * once, under its name, and referenced (`$ref`) wherever it occurs inside another schema.
 */
import { routes, type Route } from '#contract/routes/index';
import { requestComponents, responseComponents } from '#contract/schemas/index';
import { toOpenApiSchema } from './translate';
import { ref, type JsonSchema, type ReferenceObject, type SchemaObject } from './types';

const byObject = (components: ReadonlyMap<string, object>): Map<object, string> =>
  new Map([...components].map(([name, schema]) => [schema, name]));

/** Builds components from request schemas, each once, under its registered (or given) name. */
export class SchemaComponents {
  readonly schemas: Record<string, SchemaObject> = {};
  private readonly names = byObject(requestComponents);
  private readonly sources = new Map<string, object>();
  /**
   * Body schemas whose properties the handler validates in code (`validatedInCode`): the
   * component shows those properties as the schemas they are checked against, so that a
   * generated client types them (a bare `{type: object}` would type them as an empty record).
   */
  private readonly narrowed = new Map<object, JsonSchema>();

  constructor() {
    for (const route of Object.values(routes) as Route[]) {
      const body = route.body;
      if (body?.validatedInCode === undefined) continue;
      const root = body.schema as { properties?: Record<string, unknown> };
      const properties = { ...root.properties };
      for (const [property, list] of Object.entries(body.validatedInCode)) {
        if (!this.names.has(list)) {
          this.names.set(list, `${route.id}${property.charAt(0).toUpperCase()}${property.slice(1)}`);
        }
        properties[property] = list;
      }
      this.narrowed.set(body.schema, { ...root, properties });
    }
  }

  /** A `$ref` to the component of a validator schema (or one-of list), emitting it once. */
  refTo(schema: JsonSchema | readonly JsonSchema[], fallbackName: string): ReferenceObject {
    let name = this.names.get(schema);
    if (name === undefined) {
      name = fallbackName;
      this.names.set(schema, name);
    }
    this.emit(schema, name);
    return ref(name);
  }

  /** A one-of of validator schemas, with a discriminator when a required enum tells them apart. */
  oneOf(list: readonly JsonSchema[], memberName: (index: number) => string): SchemaObject {
    const members = list.map((s, i) => this.refTo(s, memberName(i)));
    const out: SchemaObject = { oneOf: members };
    const discriminator = discriminatorOf(list, members);
    if (discriminator) out.discriminator = discriminator;
    return out;
  }

  private emit(schema: JsonSchema | readonly JsonSchema[], name: string): void {
    const previous = this.sources.get(name);
    if (previous !== undefined) {
      if (previous !== schema) throw new Error(`two different schemas would be the component ${name}`);
      return;
    }
    this.sources.set(name, schema);
    this.schemas[name] = {}; // reserves the name (and the order) before subschemas are emitted
    this.schemas[name] = Array.isArray(schema)
      ? this.oneOf(schema as readonly JsonSchema[], (i) => `${name}${i + 1}`)
      : toOpenApiSchema(this.narrowed.get(schema) ?? schema, (subschema) => {
          const subName = this.names.get(subschema);
          if (subName !== undefined) this.emit(subschema, subName);
          return subName;
        });
  }
}

/** `{propertyName, mapping}` when every member requires that property with disjoint string enums. */
function discriminatorOf(
  list: readonly JsonSchema[],
  members: ReferenceObject[],
): { propertyName: string; mapping: Record<string, string> } | undefined {
  type Shape = { required?: readonly string[]; properties?: Record<string, { enum?: readonly unknown[] }> };
  const [first] = list as readonly Shape[];
  for (const property of first?.required ?? []) {
    const mapping: Record<string, string> = {};
    const ok = (list as readonly Shape[]).every((member, i) => {
      const values = member.properties?.[property]?.enum;
      if (!member.required?.includes(property) || !values) return false;
      return values.every((v) => {
        if (typeof v !== 'string' || v in mapping) return false;
        mapping[v] = members[i]!.$ref;
        return true;
      });
    });
    if (ok) return { propertyName: property, mapping };
  }
  return undefined;
}

const allNames = new Map([...byObject(requestComponents), ...byObject(responseComponents)]);

/**
 * A response schema as the document shows it: a `$ref` when it is a named component, else
 * translated, with named subschemas referenced. Response components are emitted in their
 * registry's order by `responseSchemas()`, never on first use.
 */
export function responseSchema(schema: object): SchemaObject {
  const name = allNames.get(schema);
  return name !== undefined ? ref(name) : toOpenApiSchema(schema, (sub) => allNames.get(sub));
}

/** The response components, in the registry's order. */
export function responseSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(
    [...responseComponents].map(([name, schema]) => [
      name,
      toOpenApiSchema(schema, (sub) => (sub === schema ? undefined : allNames.get(sub))),
    ]),
  );
}
