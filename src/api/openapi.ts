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
/** The signature of the action workflow deliveries (a security scheme of the `webhooks`, not of the operations). */
export const WEBHOOK_SIGNATURE_SCHEME = 'WebhookSignature';

/** One line per tag of the catalogue (`def.tag`); a tag without one fails the build of the document. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  account: 'Accounts, API keys and project creation (the project bootstrap and its callback).',
  projects: 'The projects (brands) of the key’s team.',
  prompts: 'Prompts: list, create, update, suggested prompts and prompts from URLs.',
  analytics: 'Per-prompt analytics, chats, domains and URLs; the project overview and visibility trend.',
  competitors: 'Competitors, their metrics and the review of detected (pending) competitors.',
  aliases: 'Brand aliases; their errors carry a stable `code` (ALIAS_*).',
  recording: 'Recorded URLs of a project.',
  sources: 'Cited source domains: list, analytics, detail and the chats citing a domain.',
  actions: 'Actions (recommendations) and their enrichment.',
  webhooks: 'Webhook registrations for the action workflow events (see `webhooks` for the deliveries).',
  'content-tasks': 'Content service: generation tasks (second document; `{error: {code, message}}` errors).',
  'content-articles': 'Content service: the articles the tasks write (second document).',
  bootstrap: 'Bootstrap service: the project bootstrap step by step (second document).',
  teams: 'Team service: teams and their members (second document).',
};

export interface OpenApiOptions {
  /** `servers[0].url`; default `/` (the paths carry the full base, e.g. `/api/public/v1`). */
  serverUrl?: string;
  version?: string;
}

type Operation = Record<string, unknown>;
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string };
    contact: { name: string };
  };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

const ERROR_COMPONENT: Record<ErrorShape, ErrorComponent> = {
  detail: 'ErrorBody',
  alias: 'AliasErrorBody',
  content: 'ContentErrorBody',
};

type ErrorComponent = 'ErrorBody' | 'AliasErrorBody' | 'ContentErrorBody';

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
      // package.json: the project is not published under a licence; the document is this project's contract.
      license: { name: 'UNLICENSED (private; not published under a licence)' },
      contact: { name: 'Visibility Warehouse maintainers (docs/api-contract.md)' },
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...tags].map((name) => ({ name, description: tagDescription(name) })),
    paths,
    webhooks: webhooks(),
    components: {
      schemas: sortKeys(converter.components),
      securitySchemes: {
        [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        [WEBHOOK_SIGNATURE_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Webhook-Signature',
          description:
            'Sent by the service on action workflow deliveries: hex HMAC-SHA256 of the exact raw body with the ' +
            'webhook secret (returned once by POST /webhooks). Verify it with a constant-time comparison.',
        },
      },
    },
  };
}

function tagDescription(tag: string): string {
  const description = TAG_DESCRIPTIONS[tag];
  if (!description) throw new Error(`OpenAPI tag ${tag} has no description in TAG_DESCRIPTIONS`);
  return description;
}

const SERVICE_TEXT: Record<EndpointDef['service'], string> = {
  public: 'Public data API',
  content: 'Content service (second document)',
  bootstrap: 'Bootstrap service (second document)',
  teams: 'Team service (second document)',
};
const ENVELOPE_TEXT: Record<EndpointDef['envelope'], string> = {
  A: 'The success body is envelope A, `{success: true, data}`.',
  B: 'The success body is envelope B, `{code, message, data}` (`message` is the status line).',
  none: 'The success body is the resource itself (no envelope).',
};
const PAGINATION_TEXT: Record<EndpointDef['pagination'], string> = {
  none: '',
  'page-until-empty': ' Paged with `page`/`page_size` and no total: read pages until one is empty.',
  'page-total': ' Paged with `page`/`page_size`; the body carries `total`.',
  'offset-limit': ' Paged with `offset`/`limit`; the body carries `total`.',
};

/** What the catalogue says about an operation beyond its summary, in words. */
function operationDescription(def: EndpointDef): string {
  const who = def.auth
    ? 'Needs the `X-API-Key` header; rate-limited per key.'
    : def.service === 'public'
      ? 'Needs no key.'
      : 'The caller is the `user_id` parameter or body field (authentication not shown by the spec).';
  const casing = def.casing === 'camel' ? ' Field names are camelCase.' : '';
  return `${SERVICE_TEXT[def.service]}, ${def.basePath}. ${who} ${ENVELOPE_TEXT[def.envelope]}${casing}${PAGINATION_TEXT[def.pagination]}`;
}

function operation(def: EndpointDef, converter: SchemaConverter): Operation {
  const op: Operation = {
    operationId: def.id,
    summary: def.summary,
    description: operationDescription(def),
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
    const examples: Record<string, unknown> = {};
    rows.forEach((row, index) => {
      examples[`${row.code ?? 'e'}${index}`] = { summary: row.condition, value: errorBody(row) };
    });
    out[String(status)] = {
      description: [...new Set(rows.map((row) => `${row.condition}${row.given ? '' : ' (wording decided)'}`))].join(
        '; ',
      ),
      ...errorHeaders(rows),
      content: {
        'application/json': { schema: { $ref: `#/components/schemas/${errorComponent(rows)}` }, examples },
      },
    };
  }
  return out;
}

/**
 * The one body schema of the rows of one status: theirs when they share a shape; `ErrorBody` (`code` optional) when
 * `{detail}` and alias rows meet, so no `oneOf` has two alternatives that both match an alias body.
 */
function errorComponent(rows: readonly ErrorRow[]): ErrorComponent {
  const shapes = new Set<ErrorShape>(rows.map((row) => row.shape));
  if (shapes.size === 1) return ERROR_COMPONENT[rows[0]!.shape];
  if (shapes.has('content')) throw new Error('content errors share a status with another error shape');
  return 'ErrorBody';
}

const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'Retry-After': { description: 'Seconds until a request fits the window again.', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Requests the key may make in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window (0 here).', schema: { type: 'integer' } },
  'X-Credit-Available': { description: 'Research credits left this month.', schema: { type: 'integer' } },
};

/** The rate limit's headers: required where every row of the status is the rate limit (not a plan quota's 429). */
function errorHeaders(rows: readonly ErrorRow[]): { headers?: Record<string, unknown> } {
  const limited = rows.filter((row) => row.rateLimitHeaders);
  if (limited.length === 0) return {};
  const required = limited.length === rows.length;
  const headers = Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [
      name,
      required ? { ...header, required } : { ...header, description: `${header.description} Rate limit only.` },
    ]),
  );
  return { headers };
}

const DELIVERY_HEADERS = [
  ['X-Webhook-Delivery-Id', 'The same UUID on every attempt of one delivery: deduplicate on it.', { format: 'uuid' }],
  ['X-Webhook-Event', 'action.checkpoint, action.completed or action.failed.', {}],
  ['X-Webhook-Attempt', '1 for the first attempt; up to 3 retries follow a failed one.', {}],
] as const;

function webhooks(): Record<string, unknown> {
  const delivery = (id: string, component: string, summary: string, description: string, signed: boolean) => ({
    post: {
      operationId: id,
      summary,
      description,
      tags: ['webhooks'],
      // The bootstrap callback carries no signature (no secret exists for it): `[]` says so.
      security: signed ? [{ [WEBHOOK_SIGNATURE_SCHEME]: [] }] : [],
      ...(signed
        ? {
            parameters: DELIVERY_HEADERS.map(([name, about, format]) => ({
              name,
              in: 'header',
              required: true,
              description: about,
              schema: { type: 'string', ...format },
            })),
          }
        : {}),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${component}` } } },
      },
      responses: { '200': { description: 'Received: any 2xx within 10 seconds; otherwise up to 3 retries follow.' } },
    },
  });
  return {
    'project.bootstrap': delivery(
      'projectBootstrapCallback',
      'BootstrapCallback',
      'Sent to webhook_url when a project bootstrap ends.',
      'POSTed once the bootstrap pipeline of a project created by POST /account/projects ends (`completed` or ' +
        '`error`). Unsigned: receivers confirm the project state through an authenticated request before acting.',
      false,
    ),
    'action.workflow': delivery(
      'actionWorkflowDelivery',
      'WorkflowDelivery',
      'action.checkpoint, action.completed, action.failed of the execute workflow of a new_content action.',
      'POSTed to every active webhook of the team subscribed to the event, signed with `X-Webhook-Signature` ' +
        '(hex HMAC-SHA256 of the raw body with the webhook secret).',
      true,
    ),
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
