/**
 * zod → JSON Schema for the OpenAPI document: schemas listed in COMPONENTS are emitted once under
 * `#/components/schemas` and referenced everywhere else.
 */
import * as z from 'zod';
import { COMPONENTS } from './components.js';

export type JsonSchema = Record<string, unknown>;

const COMPONENT_PREFIX = '#/components/schemas/';

/**
 * The metadata zod reads while converting: the component id for the named schemas, on top of what `.describe()`
 * stored in the global registry (a plain `z.registry()` would hide those descriptions). Only `get` is consulted.
 */
function componentRegistry(): z.core.$ZodRegistry<z.core.GlobalMeta> {
  const ids = new Map<z.ZodType, string>(Object.entries(COMPONENTS).map(([id, schema]) => [schema, id]));
  const get = (schema: z.core.$ZodType) => {
    const global = z.globalRegistry.get(schema);
    const id = ids.get(schema as z.ZodType);
    return id === undefined ? global : { ...global, id };
  };
  return { get } as unknown as z.core.$ZodRegistry<z.core.GlobalMeta>;
}

/** Converts zod schemas, collecting the named components they use. */
export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};
  private readonly registry = componentRegistry();

  /** A response (output) schema; named components become `$ref`s. */
  output(schema: z.ZodType): JsonSchema {
    return this.convert(schema, 'output', true);
  }

  /** A request (input) schema: parameters and bodies, as a caller writes them (before coercion and defaults). */
  input(schema: z.ZodType): JsonSchema {
    return this.convert(schema, 'input', false);
  }

  /** Emits every component, also those no endpoint references (the webhook deliveries). */
  addAllComponents(): void {
    for (const schema of Object.values(COMPONENTS)) this.output(schema);
  }

  private convert(schema: z.ZodType, io: 'input' | 'output', named: boolean): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      metadata: named ? this.registry : undefined,
    }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    for (const [id, def] of Object.entries(defs)) this.components[id] ??= rewriteRefs(def);
    return rewriteRefs(json);
  }
}

function rewriteRefs(json: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${COMPONENT_PREFIX}`)) as JsonSchema;
}
