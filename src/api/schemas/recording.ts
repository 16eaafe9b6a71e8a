/** Recorded URLs (/projects/{project_id}/recording): envelope B, snake_case. */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const RecordedUrl = resource({
  id: Uuid,
  url: z.string(),
  normalized_url: z.string(),
  title: z.string(),
  icon_urls: z.array(z.string()),
  created_at: Timestamp,
});
export type RecordedUrl = z.infer<typeof RecordedUrl>;

export const RecordedUrlList = resource({
  project_id: Uuid,
  total: z.int(),
  urls: z.array(RecordedUrl),
});
export type RecordedUrlList = z.infer<typeof RecordedUrlList>;

export const RecordingAddBody = z.strictObject({
  urls: z
    .array(
      z.strictObject({
        url: z.string().min(1),
        title: z.string().optional().describe('fetched in the background when omitted'),
      }),
    )
    .min(1)
    .max(50),
});
export type RecordingAddBody = z.input<typeof RecordingAddBody>;

export const RecordingRemoveBody = z.strictObject({ urls: z.array(z.string().min(1)).min(1).max(50) });
export type RecordingRemoveBody = z.input<typeof RecordingRemoveBody>;

export const RecordingChangeResult = resource({
  project_id: Uuid,
  affected_count: z.int(),
  total_recorded: z.int(),
});
export type RecordingChangeResult = z.infer<typeof RecordingChangeResult>;
