/** Project wire shape (spec "Project"): `brand_aliases` is empty in the list view and filled in the single view. */
import type { ProjectConfig } from '../world/types.js';

export function projectView(config: ProjectConfig, withAliases: boolean) {
  return {
    id: config.id,
    name: config.name,
    brand_name: config.brand_name,
    website_url: config.website_url,
    location: config.location,
    language: config.language,
    brand_aliases: withAliases ? config.aliases.map((a) => a.name) : [],
    created_at: config.created_at,
  };
}
