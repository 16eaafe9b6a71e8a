/** Project resource (GET /projects, GET /projects/{project_id}): envelope A, snake_case. */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const Project = resource({
  id: Uuid,
  name: z.string(),
  brand_name: z.string().nullable(),
  website_url: z.string().nullable(),
  location: z.string().nullable().describe('target market country code'),
  language: z.string().nullable().describe('target language code'),
  brand_aliases: z.array(z.string()).describe('always empty in the list view; filled in the single-project view'),
  created_at: Timestamp,
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.array(Project);
export type ProjectList = z.infer<typeof ProjectList>;
