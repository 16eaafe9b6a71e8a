/** Aliases apply from the day they are created: they change what is detected in later answers, not earlier ones. */
import { expect, test } from 'vitest';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import type { ProjectConfig } from '../../../src/reference/world/types.js';
import { demo, query, SEED } from './support.js';

test('an alias added on a day counts nickname mentions from that day on', () => {
  const world = createWorld({ seed: SEED });
  const [base] = demo({ prompts: 10, days: 60 });
  if (!base) throw new Error('no demo project');
  const without: ProjectConfig = { ...base, aliases: [] };
  const withAlias: ProjectConfig = {
    ...base,
    aliases: [{ name: 'Northwind', match_type: 'fuzzy', created_at: '2026-11-05T15:00:00.000Z' }],
  };
  const mentions = (project: ProjectConfig, from: string, to: string) =>
    project.prompts.flatMap((p) => world.promptChats(project, p.id, query(from, to)).items as ChatItem[]);

  const before = [mentions(without, '2026-10-25', '2026-11-04'), mentions(withAlias, '2026-10-25', '2026-11-04')];
  expect(before[1]).toEqual(before[0]);

  const after = [mentions(without, '2026-11-05', '2026-11-20'), mentions(withAlias, '2026-11-05', '2026-11-20')];
  const texts = (items: ChatItem[]) => items.map((c) => c.full_content);
  // Same answers, different detection: the nickname now counts.
  expect(texts(after[1] ?? [])).toEqual(texts(after[0] ?? []));
  const mentioned = (items: ChatItem[] = []) => items.filter((c) => c.mentioned).length;
  expect(mentioned(after[1])).toBeGreaterThan(mentioned(after[0]));
  for (const chat of after[1] ?? []) {
    const nickname = /(?<![A-Za-z0-9])northwind(?![A-Za-z0-9])/i.test(
      chat.full_content.replace(/northwind[\s\-_]*cycles/gi, ''),
    );
    const name = /northwind[\s\-_]*cycles/i.test(chat.full_content);
    expect(chat.mentioned).toBe(nickname || name);
  }
});
