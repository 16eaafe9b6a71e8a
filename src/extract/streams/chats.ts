import { type ChatItem, ChatItem as ChatSchema, catalogue } from '../../api/index.js';
import type { Partition } from '../../warehouse/loader.js';
import { defineStream, listRequest, type Row, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { dayOf, extraOf } from '../rows.js';
import { promptParents, promptPath } from './parents.js';

/**
 * GET .../chats per prompt and day range → raw.chats, with the child tables raw.chat_mentions (one row per chat ×
 * brand, from all_mentions, brands_mentioned and sentiment_by_brands) and raw.chat_references (one per reference).
 * The three tables replace the same (prompt, chat_date range) partition in one transaction.
 */
export const chatsStream = defineStream({
  name: 'chats',
  grain: 'daily',
  parents: promptParents,
  // An inactive prompt collects no new answers: after its history, a weekly look catches late ones.
  rotated: (parent) => parent.promptType === 'inactive',
  requests: [
    listRequest({
      endpoint: catalogue.getPromptChats,
      params: ({ parent, range }) => ({
        path: promptPath(parent),
        query: { date_from: range.from, date_to: range.to },
      }),
      into: { 'raw.chats': chatPartition, 'raw.chat_mentions': chatPartition, 'raw.chat_references': chatPartition },
      item: ChatSchema,
      pick: field('items'),
      rows: (items, { parent, range }) => {
        const { project_id: projectId, prompt_id: promptId } = promptPath(parent);
        const chats: Row[] = [];
        const mentions: Row[] = [];
        const references: Row[] = [];
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
        return { 'raw.chats': chats, 'raw.chat_mentions': mentions, 'raw.chat_references': references };
      },
    }),
  ],
});

/** The three tables replace the prompt's rows of the unit's days. */
function chatPartition({ parent, range }: UnitScope): Partition {
  return { equals: promptPath(parent), between: { column: 'chat_date', from: range.from, to: range.to } };
}

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
