/** Spellings the world derives from a brand name, and domain helpers. */

/**
 * Other ways answers write a brand, derived from its name alone: the first word of a multi-word name ("Northwind"
 * for "Northwind Cycles") and its initials ("NC"). Neither is found by the brand name itself, so they count as
 * mentions only once the project adds them as aliases.
 */
export function nicknames(brandName: string): string[] {
  const words = brandName
    .trim()
    .split(/\s+/)
    .filter((w) => /[A-Za-z0-9]/.test(w));
  if (words.length < 2) return [];
  const out: string[] = [];
  const first = words[0] ?? '';
  if (first.length >= 4) out.push(first);
  const initials = words
    .map((w) => w.replace(/[^A-Za-z0-9]/g, '').charAt(0))
    .join('')
    .toUpperCase();
  if (initials.length >= 2) out.push(initials);
  return out;
}

/** A domain as the world keys it: trimmed, lower case, without a leading `www.`. */
export function bareDomain(domain: string): string {
  return domain
    .trim()
    .toLowerCase()
    .replace(/^www\./, '');
}

/** The host of a URL or bare domain, lowercase, without `www.`; null when it is not one. */
export function domainOf(urlOrDomain: string | null | undefined): string | null {
  if (!urlOrDomain) return null;
  const text = urlOrDomain.trim();
  if (text.length === 0) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    const host = bareDomain(url.hostname);
    return host.includes('.') ? host : null;
  } catch {
    return null;
  }
}

/** Lowercase words joined by hyphens, for URL paths. */
export function slugify(text: string, maxWords = 6): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/[\s-]+/)
    .filter((w) => w.length > 0)
    .slice(0, maxWords)
    .join('-');
}

export function titleCase(words: string): string {
  return words
    .split(/[\s-]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
