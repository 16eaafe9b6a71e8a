/**
 * The OpenAPI 3.1 document, generated from the catalogue: one operation per entry, shared resources as
 * components, the `X-API-Key` security scheme, one response per success and error status, and the webhook
 * deliveries under `webhooks`. `vwh openapi` prints it; the reference server serves it.
 */
import { allEndpoints } from './catalogue.js';
import type { EndpointDef } from './endpoint.js';
import { type ErrorRow, type ErrorShape, errorBody } from './errors.js';
import { type JsonSchema, SchemaConverter } from './json-schema.js';
import { openApiPath } from './paths.js';
import { statusLine } from './status.js';

export const API_KEY_SCHEME = 'ApiKeyAuth';

export interface OpenApiOptions {
  /** `servers[0].url`; default `/` (the paths carry the full base, e.g. `/api/public/v1`). */
  serverUrl?: string;
  version?: string;
}

type Operation = Record<string, unknown>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

const ERROR_COMPONENT: Record<ErrorShape, string> = {
  detail: 'ErrorBody',
  alias: 'AliasErrorBody',
  content: 'ContentErrorBody',
};

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const converter = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const def of allEndpoints()) {
    const path = openApiPath(def);
    paths[path] ??= {};
    paths[path][def.method.toLowerCase()] = operation(def, converter);
    tags.add(def.tag);
  }
  converter.addAllComponents();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Brand visibility services (Visibility Warehouse contract)',
      version: options.version ?? '1',
      description:
        'Public data API (/api/public/v1) and the content (/api/v1), bootstrap (/api/v1, /api/v2) and team ' +
        '(/api/v2) services, generated from src/api. Response objects allow additional properties.',
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      schemas: sortKeys(converter.components),
      securitySchemes: { [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
  };
}

function operation(def: EndpointDef, converter: SchemaConverter): Operation {
  const op: Operation = {
    operationId: def.id,
    summary: def.summary,
    tags: [def.tag],
    parameters: [...parameters(def.params, 'path', converter), ...parameters(def.query, 'query', converter)],
    security: def.auth ? [{ [API_KEY_SCHEME]: [] }] : [],
    responses: responses(def, converter),
    'x-service': def.service,
    'x-envelope': def.envelope,
    'x-casing': def.casing,
    'x-pagination': def.pagination,
  };
  if (def.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: converter.input(def.body) } } };
  }
  return op;
}

function parameters(schema: EndpointDef['query'], where: 'path' | 'query', converter: SchemaConverter) {
  const json = converter.input(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      // Conditional spreads: the OpenAPI document is JSON, compared as written.
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}

function responses(def: EndpointDef, converter: SchemaConverter): Record<string, unknown> {
  const out: Record<string, unknown> = {
    [String(def.successStatus)]: {
      description: statusLine(def.successStatus),
      content: { 'application/json': { schema: converter.output(def.servedResponse) } },
    },
  };
  const byStatus = new Map<number, ErrorRow[]>();
  for (const row of def.errors) byStatus.set(row.status, [...(byStatus.get(row.status) ?? []), row]);
  for (const [status, rows] of [...byStatus].sort(([a], [b]) => a - b)) {
    const shapes = [...new Set(rows.map((row) => row.shape))];
    const refs = shapes.map((shape) => ({ $ref: `#/components/schemas/${ERROR_COMPONENT[shape]}` }));
    const examples: Record<string, unknown> = {};
    rows.forEach((row, index) => {
      examples[`${row.code ?? 'e'}${index}`] = { summary: row.condition, value: errorBody(row) };
    });
    out[String(status)] = {
      description: [...new Set(rows.map((row) => `${row.condition}${row.given ? '' : ' (wording decided)'}`))].join(
        '; ',
      ),
      ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' } } } } : {}),
      content: { 'application/json': { schema: refs.length === 1 ? refs[0] : { oneOf: refs }, examples } },
    };
  }
  return out;
}

function webhooks(): Record<string, unknown> {
  const delivery = (component: string, summary: string, signed: boolean) => ({
    post: {
      summary,
      ...(signed
        ? { parameters: [{ name: 'X-Webhook-Signature', in: 'header', required: true, schema: { type: 'string' } }] }
        : {}),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } },
      },
      responses: { '200': { description: 'received (answer within 10 seconds)' } },
    },
  });
  return {
    'project.bootstrap': delivery('BootstrapCallback', 'Sent to webhook_url when a project bootstrap ends.', false),
    'action.workflow': delivery(
      'WorkflowDelivery',
      'action.checkpoint, action.completed, action.failed; hex HMAC-SHA256 of the raw body with the secret.',
      true,
    ),
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
