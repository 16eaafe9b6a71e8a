/**
 * Recorded URLs (envelope B): list, add (title fetched in the background when omitted), remove. Recording a URL
 * does not create a prompt.
 */
import type { Hono } from 'hono';
import { ERRORS } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord, RecordedUrl } from '../state/projects.js';
import { iconUrls } from '../views/competitor.js';

/** Lowercase scheme and host, no `www.`, no fragment, no trailing slash, tracking parameters dropped (decided). */
export function normalizeUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hash = '';
  for (const key of [...url.searchParams.keys()]) if (/^utm_/i.test(key)) url.searchParams.delete(key);
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const path = url.pathname.replace(/\/+$/, '');
  return `https://${host}${path}${url.search}`;
}

function titleFromUrl(normalized: string): string {
  const url = new URL(normalized);
  const last = url.pathname.split('/').filter(Boolean).pop();
  const words = (last ?? url.hostname).replace(/[-_]+/g, ' ').replace(/\.\w+$/, '');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function listView(project: ProjectRecord) {
  return { project_id: project.config.id, total: project.recorded.length, urls: project.recorded };
}

export function registerRecording(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listRecordedUrls', ({ project }) => listView(project));

  route(
    api,
    state,
    'recordUrls',
    ({ project, body }) => {
      const items = body.urls.map((entry) => {
        const normalized = normalizeUrl(entry.url);
        if (!normalized) throw rowError(ERRORS.recordingInvalid, 'Each url must be a valid http(s) URL');
        return { url: entry.url.trim(), normalized, title: entry.title ?? null };
      });
      let affected = 0;
      for (const item of items) {
        if (project.recorded.some((r) => r.normalized_url === item.normalized)) continue;
        const record: RecordedUrl = {
          id: state.ids.next('recorded-url'),
          url: item.url,
          normalized_url: item.normalized,
          title: item.title ?? '',
          icon_urls: iconUrls(item.normalized),
          created_at: state.nowIso(),
        };
        project.recorded.push(record);
        affected += 1;
        if (item.title === null) {
          state.background.schedule(() => {
            record.title = titleFromUrl(record.normalized_url);
          });
        }
      }
      return { project_id: project.config.id, affected_count: affected, total_recorded: project.recorded.length };
    },
    { invalidBody: ERRORS.recordingInvalid },
  );

  route(
    api,
    state,
    'removeRecordedUrls',
    ({ project, body }) => {
      const targets = new Set(body.urls.map((u) => normalizeUrl(u) ?? u));
      const before = project.recorded.length;
      project.recorded = project.recorded.filter((r) => !targets.has(r.normalized_url) && !targets.has(r.url));
      return {
        project_id: project.config.id,
        affected_count: before - project.recorded.length,
        total_recorded: project.recorded.length,
      };
    },
    { invalidBody: ERRORS.recordingInvalid },
  );
}
