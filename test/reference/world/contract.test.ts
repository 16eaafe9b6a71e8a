/** The world's outputs parse with the API contract's response schemas (src/api), served variants where decided. */
import { describe, expect, test } from 'vitest';
import {
  ActiveCompetitors,
  ChatList,
  OverviewList,
  Prompt,
  PromptAnalytics,
  PromptDomainList,
  PromptUrlList,
  SourceChatsServed,
  SourceDetailServed,
  SourceDomainPage,
  SourcesAnalytics,
  VisibilityTrend,
} from '../../../src/api/index.js';
import { createWorld } from '../../../src/reference/world/index.js';
import { demo, NOW, query, SEED } from './support.js';

const world = createWorld({ seed: SEED });
const projects = demo({ prompts: 8, days: 60 });
const range = query('2026-11-01');

function parses(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown): void {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(JSON.stringify(result.error, null, 1).slice(0, 2000));
  expect(result.success).toBe(true);
}

describe('contract', () => {
  test('per-prompt endpoints', () => {
    for (const project of projects) {
      for (const prompt of project.prompts) {
        parses(PromptAnalytics, world.promptAnalytics(project, prompt.id, range));
        parses(ChatList, world.promptChats(project, prompt.id, range));
        parses(PromptDomainList, world.promptDomains(project, prompt.id, range));
        parses(PromptUrlList, world.promptUrls(project, prompt.id, range));
        const summary = world.promptSummary(project, prompt.id, NOW);
        parses(Prompt, {
          id: prompt.id,
          project_id: project.id,
          content: prompt.content,
          prompt_type: prompt.type_history.at(-1)?.prompt_type,
          topic_id: prompt.topic_id,
          country: prompt.country,
          created_at: prompt.created_at,
          ...summary,
        });
      }
    }
  });

  test('project endpoints', () => {
    for (const project of projects) {
      parses(ActiveCompetitors, world.competitors(project, range));
      parses(OverviewList, world.overview(project, range, 'active'));
      parses(OverviewList, world.overview(project, range, 'suggested'));
      parses(VisibilityTrend, world.visibilityTrend(project, range));
      const sources = world.sources(project, range);
      parses(SourceDomainPage, sources);
      parses(SourcesAnalytics, world.sourcesAnalytics(project, range));
      const top = (sources[0] as { domain: string }).domain;
      parses(SourceDetailServed, world.sourceDetail(project, top, range, 1, 20));
      parses(SourceDetailServed, world.sourceDetail(project, 'never-cited.example', range, 1, 20));
      const chats = world.sourceChats(project, top, range, 2, 5) as { items: unknown[]; total: number };
      parses(SourceChatsServed, chats);
      expect(chats.items).toHaveLength(5);
    }
  });
});
