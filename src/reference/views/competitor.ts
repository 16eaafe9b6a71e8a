/** Competitor helpers: website normalization (a domain or a full URL → `https://host`), icons, list items. */
import type { CompetitorConfig } from '../world/types.js';

export interface NormalizedWebsite {
  url: string;
  /** Host without `www.`: what duplicates are compared on. */
  domain: string;
}

export function normalizeWebsite(raw: string): NormalizedWebsite | null {
  let text = raw.trim();
  if (text === '' || /\s/.test(text)) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) || /^[0-9.]+$/.test(host)) return null;
  return { url: `https://${host}`, domain: host.replace(/^www\./, '') };
}

export function iconUrls(website: string): string[] {
  const domain = normalizeWebsite(website)?.domain ?? website;
  return [`https://www.google.com/s2/favicons?domain=${domain}&sz=64`];
}

export function competitorItem(projectId: string, c: CompetitorConfig, metrics: unknown = null) {
  const icons = iconUrls(c.website);
  return {
    competitor_id: c.id,
    project_id: projectId,
    name: c.name,
    website: c.website,
    icon_url: icons[0] ?? null,
    icon_urls: icons,
    state: c.state,
    is_own_brand: false,
    metrics,
  };
}

export function competitorCreatedItem(projectId: string, c: CompetitorConfig) {
  const icons = iconUrls(c.website);
  return {
    competitorId: c.id,
    projectId,
    name: c.name,
    website: c.website,
    iconUrl: icons[0] ?? null,
    iconUrls: icons,
    state: c.state,
    isOwnBrand: false,
    metrics: null,
  };
}
