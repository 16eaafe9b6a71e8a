import { describe, expect, it } from 'vitest';
import { ChatItem } from '../../src/api/index.js';
import { mentionRows } from '../../src/sync/streams/chats.js';

const chat = (over: Record<string, unknown>) =>
  ChatItem.parse({
    id: '00000000-0000-4000-8000-000000000001',
    date: '2026-01-02T03:04:05Z',
    mentioned: true,
    position: 1,
    chat_preview: 'p',
    platform: 'chatgpt',
    model: 'm',
    full_content: 'f',
    prompt_content: 'q',
    sentiment: 50,
    all_mentions: [],
    brands_mentioned: null,
    sentiment_by_brands: null,
    references: [],
    ...over,
  });

describe('chats mention rows', () => {
  it('gives each brand once, in the order all_mentions, brands_mentioned, sentiment_by_brands, with its first mention', () => {
    const rows = mentionRows(
      chat({
        all_mentions: [
          { name: 'B', icon_url: 'b1', icon_urls: ['b1'], tier: 'gold' },
          { name: 'A', icon_url: null, icon_urls: [] },
          { name: 'B', icon_url: 'b2', icon_urls: ['b2'] },
        ],
        brands_mentioned: { C: { position: 2, count: 3 }, A: { position: 1, count: 1 } },
        sentiment_by_brands: { D: 10, C: 20, B: 30 },
      }),
    );
    expect(rows.map((r) => r.brand_name)).toEqual(['B', 'A', 'C', 'D']);
    expect(rows[0]).toEqual({
      brand_name: 'B',
      in_all_mentions: true,
      icon_url: 'b1',
      icon_urls: ['b1'],
      in_brands_mentioned: false,
      brand_position: null,
      brand_count: null,
      brand_sentiment: 30,
      _extra: { tier: 'gold' },
    });
    expect(rows[1]).toMatchObject({
      in_all_mentions: true,
      in_brands_mentioned: true,
      brand_position: 1,
      _extra: null,
    });
    expect(rows[2]).toMatchObject({ in_all_mentions: false, icon_url: null, brand_count: 3, brand_sentiment: 20 });
    expect(rows[3]).toMatchObject({ in_all_mentions: false, in_brands_mentioned: false, brand_sentiment: 10 });
  });

  it('gives no rows for a chat that names no brand', () => {
    expect(mentionRows(chat({ brands_mentioned: {}, sentiment_by_brands: {} }))).toEqual([]);
  });
});
