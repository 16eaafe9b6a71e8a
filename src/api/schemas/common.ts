/**
 * Building blocks shared by every resource schema: identifiers, dates, the tolerant object constructor, and the
 * date-range / paging query fields (shared/spec/public-data-api.md, "Conventions" 1 and 4).
 *
 * Response objects are built with `resource()` (zod's loose object): unknown extra fields survive parsing, so the
 * client keeps what a newer API adds (the sync stores it in a JSON column) while the server still checks that every
 * field the spec names is present with the right type.
 */
import * as z from 'zod';

/** A response object: the named fields are checked, unknown extra fields are kept. */
export const resource = z.looseObject;

/**
 * UUID string, any version (8-4-4-4-12 hex). Deliberately `guid` rather than RFC-strict `uuid`: the own-brand
 * competitor id is the all-zero UUID, and the client must not reject ids from a generator with other version bits.
 */
export const Uuid = z.guid();
/** The all-zero UUID the API gives the injected own brand in the competitor list. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** Calendar day `YYYY-MM-DD` (a real date: 2025-02-30 is rejected). */
export const Day = z.iso.date();
/**
 * ISO 8601 timestamp. Accepts a UTC `Z`, an offset, or no zone at all (the spec says only "ISO 8601"), and any
 * fractional-second precision.
 */
export const Timestamp = z.iso.datetime({ offset: true, local: true });
/** Chat `date` and similar: a full timestamp or a bare calendar day. */
export const DateOrTimestamp = z.union([Timestamp, Day]);

export const Provider = z.string().min(1).describe('provider identifier, e.g. chatgpt, perplexity, gemini');

export const PROMPT_TYPES = ['active', 'suggested', 'pending', 'inactive', 'url_recommended'] as const;
/** Prompt type in the list endpoints (lowercase snake_case). */
export const PromptType = z.enum(PROMPT_TYPES);
export type PromptType = z.infer<typeof PromptType>;

export const INTENTS = ['informational', 'commercial', 'navigational', 'transactional'] as const;
export const Intent = z.enum(INTENTS);
export type Intent = z.infer<typeof Intent>;

export const Trend = z.enum(['up', 'down', 'stable']);

/** BrandMention / BrandInfo: a brand seen in an answer, with its icon. */
export const BrandInfo = resource({
  name: z.string(),
  icon_url: z.string().nullable(),
  icon_urls: z.array(z.string()),
});
export type BrandInfo = z.infer<typeof BrandInfo>;
/** Same shape as BrandInfo; the spec names both. */
export const BrandMention = BrandInfo;
export type BrandMention = BrandInfo;

/** Query values arrive as strings; the client may also pass arrays. `a,b` and `?p=a&p=b` both give `['a','b']`. */
export const CommaList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((part) => part.split(','))
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  )
  .describe('comma-separated list');

/** An integer query parameter: a string from the URL, or a number from a typed caller. */
export function queryInt() {
  return z.coerce.number<number | string>().int();
}

/** Date-range query parameters of the analytics endpoints (Conventions 4). */
export const DateRangeQueryShape = {
  duration_days: queryInt().min(1).default(7).describe('days ending at date_to (default today)'),
  date_from: Day.optional().describe('YYYY-MM-DD; wins over duration_days'),
  date_to: Day.optional().describe('YYYY-MM-DD; default today'),
  providers: CommaList.optional().describe('comma-separated provider identifiers'),
};
export const DateRangeQuery = z.object(DateRangeQueryShape);
export type DateRangeQuery = z.output<typeof DateRangeQuery>;
export type DateRangeQueryInput = z.input<typeof DateRangeQuery>;

/** `page` / `page_size` query fields with an endpoint's default and maximum page size. */
export function pageQueryShape(defaultSize: number, maxSize: number) {
  return {
    page: queryInt().min(1).default(1),
    page_size: queryInt().min(1).max(maxSize).default(defaultSize),
  };
}

/** A paginated object inside a response (source detail): `{page, page_size, total, items}`. */
export function paginated<T extends z.ZodType>(item: T) {
  return resource({
    page: z.int(),
    page_size: z.int(),
    total: z.int(),
    items: z.array(item),
  });
}

/** `{items: T[]}`, the data of several list endpoints. */
export function itemsOf<T extends z.ZodType>(item: T) {
  return resource({ items: z.array(item) });
}

export const NoParams = z.object({});
export const ProjectParams = z.object({ project_id: Uuid });
