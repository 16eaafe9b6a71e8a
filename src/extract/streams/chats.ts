import { type ChatItem, ChatItem as ChatSchema, catalogue } from '../../api/index.js';
import { fetchList, field } from '../fetch.js';
import { dayOf, extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { promptParents } from './parents.js';

/**
 * GET .../chats per prompt and day range → raw.chats, with the child tables raw.chat_mentions (one row per chat ×
 * brand, from all_mentions, brands_mentioned and sentiment_by_brands) and raw.chat_references (one per reference).
 * The three tables replace the same (prompt, chat_date range) partition in one transaction.
 */
export const chatsStream: StreamDef = {
  name: 'chats',
  tables: ['raw.chats', 'raw.chat_mentions', 'raw.chat_references'],
  grain: 'daily',
  parents: promptParents,
  // An inactive prompt collects no new answers: after its history, a weekly look catches late ones.
  rotated: (parent) => parent.promptType === 'inactive',
  estimate: () => 1,
  async fetch(ctx, parent, range) {
    const promptId = parent.promptId ?? parent.id;
    const projectId = parent.projectId ?? '';
    const { items, rejected } = await fetchList(
      ctx,
      catalogue.getPromptChats,
      { path: { project_id: projectId, prompt_id: promptId }, query: { date_from: range.from, date_to: range.to } },
      ChatSchema,
      field('items'),
    );
    const chats: Record<string, unknown>[] = [];
    const mentions: Record<string, unknown>[] = [];
    const references: Record<string, unknown>[] = [];
    for (const chat of items) {
      const chatDate = dayOf(chat.date);
      if (chatDate < range.from || chatDate > range.to) continue;
      const base = { project_id: projectId, prompt_id: promptId, chat_id: chat.id, chat_date: chatDate };
      chats.push({
        project_id: projectId,
        prompt_id: promptId,
        id: chat.id,
        date: chat.date,
        chat_date: chatDate,
        mentioned: chat.mentioned,
        position: chat.position,
        chat_preview: chat.chat_preview,
        platform: chat.platform,
        model: chat.model,
        full_content: chat.full_content,
        prompt_content: chat.prompt_content,
        sentiment: chat.sentiment,
        brands_mentioned_is_null: chat.brands_mentioned === null,
        sentiment_by_brands_is_null: chat.sentiment_by_brands === null,
        _extra: extraOf(chat, ChatSchema),
      });
      for (const m of mentionRows(chat)) mentions.push({ ...base, ...m });
      for (const r of chat.references) {
        references.push({
          ...base,
          reference_index: r.reference_index,
          title: r.title,
          link: r.link,
          snippet: r.snippet,
          _extra: extraOf(r, REFERENCE_FIELDS),
        });
      }
    }
    const partition = {
      equals: { project_id: projectId, prompt_id: promptId },
      between: { column: 'chat_date', from: range.from, to: range.to },
    };
    return {
      loads: [
        { table: 'raw.chats', partition, rows: chats },
        { table: 'raw.chat_mentions', partition, rows: mentions },
        { table: 'raw.chat_references', partition, rows: references },
      ],
      rejected,
    };
  },
};

const REFERENCE_FIELDS = ['title', 'link', 'snippet', 'reference_index'];
const MENTION_FIELDS = ['name', 'icon_url', 'icon_urls'];

/** One row per brand named anywhere in the chat (the union of the three brand fields). */
export function mentionRows(chat: ChatItem): Record<string, unknown>[] {
  const names = new Set<string>([
    ...chat.all_mentions.map((m) => m.name),
    ...Object.keys(chat.brands_mentioned ?? {}),
    ...Object.keys(chat.sentiment_by_brands ?? {}),
  ]);
  return [...names].map((name) => {
    const mention = chat.all_mentions.find((m) => m.name === name);
    const presence = chat.brands_mentioned?.[name];
    return {
      brand_name: name,
      in_all_mentions: mention !== undefined,
      icon_url: mention?.icon_url ?? null,
      icon_urls: mention?.icon_urls ?? null,
      in_brands_mentioned: presence !== undefined,
      brand_position: presence?.position ?? null,
      brand_count: presence?.count ?? null,
      brand_sentiment: chat.sentiment_by_brands?.[name] ?? null,
      _extra: mention ? extraOf(mention, MENTION_FIELDS) : null,
    };
  });
}
