import { type ChatItem, ChatItem as ChatSchema, catalogue } from '../../api/index.js';
import type { Partition } from '../../warehouse/load-types.js';
import { defineStream, listRequest, type Row, type UnitScope } from '../declare.js';
import { field } from '../fetch.js';
import { dayOf, extraOf, fieldsOf } from '../rows.js';
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
      key: (chat) => chat.id,
      rows: (items, { parent, range }) => {
        const { project_id: projectId, prompt_id: promptId } = promptPath(parent);
        const chats: Row[] = [];
        const mentions: Row[] = [];
        const references: Row[] = [];
        for (const chat of items) {
          const chatDate = dayOf(chat.date);
          if (chatDate < range.from || chatDate > range.to) continue;
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
            _extra: extraOf(chat, CHAT_FIELDS),
          });
          // Rows are built whole, in one literal each (no spreads): this runs for every answer of every page.
          pushMentionRows(chat, { projectId, promptId, chatId: chat.id, chatDate }, mentions);
          for (const r of chat.references) {
            references.push({
              project_id: projectId,
              prompt_id: promptId,
              chat_id: chat.id,
              chat_date: chatDate,
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

const CHAT_FIELDS = fieldsOf(ChatSchema);
const REFERENCE_FIELDS = fieldsOf(['title', 'link', 'snippet', 'reference_index']);
const MENTION_FIELDS = fieldsOf(['name', 'icon_url', 'icon_urls']);

interface ChatKey {
  projectId: string;
  promptId: string;
  chatId: string;
  chatDate: string;
}

/** One row per brand named anywhere in the chat (the union of the three brand fields), without the chat's key. */
export function mentionRows(chat: ChatItem): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  pushMentionRows(chat, { projectId: '', promptId: '', chatId: '', chatDate: '' }, rows);
  return rows.map(({ project_id, prompt_id, chat_id, chat_date, ...row }) => row);
}

/**
 * Pushes the chat's mention rows onto `out`, led by the chat's key columns: names in the order
 * all_mentions, brands_mentioned, sentiment_by_brands, each once; a name's all_mentions entry is its first one.
 */
function pushMentionRows(chat: ChatItem, key: ChatKey, out: Record<string, unknown>[]): void {
  const first = new Map<string, ChatItem['all_mentions'][number]>();
  for (const m of chat.all_mentions) if (!first.has(m.name)) first.set(m.name, m);
  const presence = chat.brands_mentioned;
  const sentiments = chat.sentiment_by_brands;
  for (const [name, mention] of first) out.push(mentionRow(key, name, mention, presence, sentiments));
  if (presence)
    for (const name in presence) if (!first.has(name)) out.push(mentionRow(key, name, undefined, presence, sentiments));
  if (sentiments)
    for (const name in sentiments)
      if (!first.has(name) && !(presence && Object.hasOwn(presence, name)))
        out.push(mentionRow(key, name, undefined, presence, sentiments));
}

/** One mention row, in one literal with the chat's key columns. */
function mentionRow(
  key: ChatKey,
  name: string,
  mention: ChatItem['all_mentions'][number] | undefined,
  presence: ChatItem['brands_mentioned'],
  sentiments: ChatItem['sentiment_by_brands'],
): Record<string, unknown> {
  const brand = presence?.[name];
  return {
    project_id: key.projectId,
    prompt_id: key.promptId,
    chat_id: key.chatId,
    chat_date: key.chatDate,
    brand_name: name,
    in_all_mentions: mention !== undefined,
    icon_url: mention?.icon_url ?? null,
    icon_urls: mention?.icon_urls ?? null,
    in_brands_mentioned: brand !== undefined,
    brand_position: brand?.position ?? null,
    brand_count: brand?.count ?? null,
    brand_sentiment: sentiments?.[name] ?? null,
    _extra: mention ? extraOf(mention, MENTION_FIELDS) : null,
  };
}
