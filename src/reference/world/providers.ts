/** The three AI providers every active prompt is asked each day. */
import type { ProviderInfo } from './types.js';

export const PROVIDERS: readonly ProviderInfo[] = Object.freeze([
  { id: 'chatgpt', name: 'ChatGPT', model: 'gpt-4o-2024-08-06' },
  { id: 'perplexity', name: 'Perplexity', model: 'sonar-pro' },
  { id: 'gemini', name: 'Gemini', model: 'gemini-2.0-flash' },
]);

/** Indices into PROVIDERS kept by a `providers` filter (undefined or empty = all; unknown ids are ignored). */
export function providerIndices(filter: readonly string[] | undefined): number[] {
  const all = PROVIDERS.map((_, i) => i);
  if (!filter || filter.length === 0) return all;
  const wanted = new Set(filter.map((id) => id.trim().toLowerCase()));
  return all.filter((i) => wanted.has(PROVIDERS[i]?.id ?? ''));
}
