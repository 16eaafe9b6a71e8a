/**
 * The `--demo` team: an enterprise team, a demo user and an admin key, with the world's demo projects. The world
 * gives the configuration (prompts, competitors, actions); the server adds the texts only it keeps (action titles).
 */

import type { ActionConfig } from '../world/types.js';
import type { ActionDetails } from './projects.js';
import type { Stores } from './stores.js';

export const DEMO_EMAIL = 'demo@example.com';

export function seedDemoTeam(state: Stores, apiKey?: string): { apiKey: string; teamId: string } {
  const createdAt = new Date(state.sim.now() - state.options.historyDays * 86_400_000).toISOString();
  const team = state.accounts.createTeam('Demo team', 'enterprise', createdAt);
  const user = state.accounts.createUser(DEMO_EMAIL, `demo-${state.options.seed}`, team.id);
  const { key } = state.accounts.mintKey(team.id, { userId: user.id, createdAt, key: apiKey });
  const configs = state.world.demoTeam({
    seed: state.options.seed,
    projects: state.options.projects,
    promptsPerProject: state.options.prompts,
    historyDays: state.options.historyDays,
    ownShifts: state.options.ownShifts,
    today: state.sim.today(),
    teamId: team.id,
  });
  for (const config of configs) {
    const actionDetails = new Map<string, ActionDetails>();
    for (const action of config.actions) actionDetails.set(action.id, demoActionDetails(action, config.created_at));
    state.projects.add(config, { actionDetails });
  }
  return { apiKey: key, teamId: team.id };
}

const TITLES: Record<ActionConfig['category'], string> = {
  on_page_seo: 'Improve on-page SEO for',
  new_content: 'Write a new article about',
  content_update: 'Update the page',
  forum_engagement: 'Join the discussion on',
};

export function demoActionDetails(action: ActionConfig, createdAt: string): ActionDetails {
  const target = action.targets[0]?.value ?? 'the brand';
  const at = action.completed_at ?? createdAt;
  return {
    priority: action.expected_impact_max !== null && action.expected_impact_max >= 5 ? 'high' : 'medium',
    title: `${TITLES[action.category]} ${target}`,
    description: `Suggested because AI answers about ${target} rarely mention the brand.`,
    effort: action.category === 'new_content' ? 'major' : 'moderate',
    execution: {
      type:
        action.category === 'new_content'
          ? 'publishable_content'
          : action.category === 'forum_engagement'
            ? 'forum_reply'
            : 'manual',
      prompt: null,
      skill: null,
      params: null,
    },
    group: null,
    depends_on: [],
    created_at: createdAt,
    updated_at: at,
    status_history:
      action.status === 'suggested'
        ? [{ status: 'suggested', at: createdAt }]
        : [
            { status: 'suggested', at: createdAt },
            { status: action.status, at },
          ],
  };
}
