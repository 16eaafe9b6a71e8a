/** Example `data` payloads built from the spec's field tables, one per resource, in the wire shape. */
export const ids = {
  project: '7f3c2a7e-1b2d-4c3e-8f4a-5b6c7d8e9f01',
  prompt: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
  topic: '11111111-2222-4333-8444-555555555555',
  competitor: '22222222-3333-4444-8555-666666666666',
  own: '00000000-0000-0000-0000-000000000000',
  chat: '33333333-4444-4555-8666-777777777777',
  action: '44444444-5555-4666-8777-888888888888',
  user: '55555555-6666-4777-8888-999999999999',
  team: '66666666-7777-4888-8999-aaaaaaaaaaaa',
};
const at = '2025-06-01T08:30:00Z';
const brand = { name: 'Acme', icon_url: null, icon_urls: [] };

export const project = {
  id: ids.project,
  name: 'Acme',
  brand_name: 'Acme',
  website_url: 'https://acme.example',
  location: 'US',
  language: 'en',
  brand_aliases: [],
  created_at: at,
};

export const prompt = {
  id: ids.prompt,
  project_id: ids.project,
  content: 'best anvils for cartoon physics',
  prompt_type: 'active',
  topic_id: ids.topic,
  country: 'US',
  visibility: 42.5,
  sentiment: 70,
  position: 2.3,
  volume: 12,
  cvr: 0.4,
  intent: 'commercial',
  trend: 'up',
  created_at: at,
};

export const promptAnalytics = {
  prompt_id: ids.prompt,
  prompt_content: prompt.content,
  volume: 12,
  sentiment: null,
  visibility_chart: { '2025-06-01': [{ provider: 'chatgpt', value: 50 }] },
  position_chart: { '2025-06-01': [{ provider: 'chatgpt', value: 2 }] },
  sentiment_chart: {},
};

export const chatItem = {
  id: ids.chat,
  date: at,
  mentioned: true,
  position: 1,
  all_mentions: [brand],
  chat_preview: 'Acme makes the best anvils.',
  platform: 'chatgpt',
  model: 'gpt-4o',
  full_content: 'Acme makes the best anvils. Others exist.',
  prompt_content: prompt.content,
  references: [{ title: 'Anvils', link: 'https://news.example/anvils', snippet: '…', reference_index: 1 }],
  brands_mentioned: { Acme: { position: 1, count: 2 } },
  sentiment: 80,
  sentiment_by_brands: { Acme: 80 },
};

export const promptDomain = {
  domain: 'news.example',
  domain_type: 1,
  citation_count: 4,
  avg_citations: 1.3,
  used_percentage: 25,
  mentioned: true,
  brands_appeared: [brand],
  favicon_url: null,
  favicon_urls: [],
};

export const promptUrl = {
  url: 'https://news.example/anvils',
  title: 'Anvils',
  domain: 'news.example',
  url_type: null,
  url_type_name: 'article',
  mentioned_count: 3,
  brands_appear: [brand],
  first_seen: at,
  last_seen: at,
};

export const competitor = {
  competitor_id: ids.own,
  project_id: ids.project,
  name: 'Acme',
  website: 'https://acme.example',
  icon_url: null,
  icon_urls: [],
  state: 'active',
  is_own_brand: true,
  metrics: {
    visibility: 0,
    sentiment: null,
    position: null,
    mention_count: null,
    days_with_data: 0,
    period: '2025-05-26 to 2025-06-01',
  },
};

export const competitorCreateResult = {
  projectId: ids.project,
  created: 1,
  competitors: [
    {
      competitorId: ids.competitor,
      projectId: ids.project,
      name: 'Roadrunner Inc',
      website: 'https://roadrunner.example',
      iconUrl: null,
      iconUrls: [],
      state: 'active',
      isOwnBrand: false,
      metrics: null,
    },
  ],
};

export const overviewItem = {
  prompt_id: ids.prompt,
  content: prompt.content,
  prompt_type: 'active',
  created_at: at,
  topic_id: null,
  topic_name: null,
  visibility: 40,
  sentiment: 60,
  position: 2,
  volume: null,
  intent: null,
  cvr: null,
  competitors_mentioned: [
    { competitor_id: ids.competitor, name: 'Roadrunner', mention_count: 2, icon_url: null, icon_urls: [] },
  ],
};

export const visibilityTrend = {
  dates: ['2025-05-31', '2025-06-01'],
  period: '2025-05-31 to 2025-06-01',
  series: [
    {
      competitor_id: ids.own,
      name: 'Acme',
      website: 'https://acme.example',
      icon_url: null,
      is_own_brand: true,
      visibility: [40, null],
      sentiment: [60, null],
      position: [2, null],
    },
  ],
};

export const sourceDomain = { source_id: ids.chat, domain: 'news.example', category: 1, reference_count: 9 };

export const sourcesAnalytics = {
  stats: { total_sources: 1, total_citations: 9 },
  category_breakdown: { corporate: 0, editorial: 100, institutional: 0, reference: 0, ugc: 0, other: 0 },
  performance_chart: { dates: ['2025-06-01'], series: [{ domain: 'news.example', values: [100] }] },
  top_domains: [sourceDomain],
  opportunities: [{ domain: 'news.example', citation_count: 3, category: 1, category_name: 'editorial' }],
};

export const action = {
  id: ids.action,
  priority: 'high',
  title: 'Write a comparison page',
  description: 'Compare anvils',
  category: 'new_content',
  effort: null,
  expected_impact_min: null,
  expected_impact_max: 5,
  status: 'suggested',
  targets: [{ type: 'keyword', value: 'anvil' }],
  execution: { type: 'publishable_content', prompt: null, skill: null, params: null },
  group: null,
  depends_on: [],
  created_at: at,
  updated_at: at,
};

export const aliasList = {
  project_id: ids.project,
  brand_name: 'Acme',
  aliases: [{ name: 'ACME Corp', match_type: 'fuzzy' }],
  limit: 20,
  remaining: 19,
};

export const recordedUrls = {
  project_id: ids.project,
  total: 1,
  urls: [
    {
      id: ids.chat,
      url: 'https://acme.example/a',
      normalized_url: 'acme.example/a',
      title: 'A',
      icon_urls: [],
      created_at: at,
    },
  ],
};

export const webhook = {
  id: 'wh_123',
  url: 'https://hooks.example/x',
  events: ['action.completed'],
  is_active: true,
  created_at: at,
};
