/** Brand strength drifts over time, and a completed action raises the visibility of the prompts it targets. */
import { describe, expect, test } from 'vitest';
import { addDays } from '../../../src/core/days.js';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ActionConfig, ProjectConfig } from '../../../src/reference/world/types.js';
import { demo, NOW, query, SEED } from './support.js';

const world = createWorld({ seed: SEED });

function ownVisibility(project: ProjectConfig, from: string, to: string, promptIds?: Set<string>): number {
  const scoped = promptIds ? { ...project, prompts: project.prompts.filter((p) => promptIds.has(p.id)) } : project;
  const trend = world.visibilityTrend(scoped, query(from, to, NOW)) as {
    series: Array<{ is_own_brand: boolean; visibility: Array<number | null> }>;
  };
  const own = trend.series.find((s) => s.is_own_brand)?.visibility.filter((v): v is number => v !== null) ?? [];
  return own.reduce((s, v) => s + v, 0) / own.length;
}

describe('drift', () => {
  test("the own brand's visibility differs between distant months", () => {
    const [project] = demo({ prompts: 15, days: 365 });
    if (!project) throw new Error('no demo project');
    const months = ['2026-01-01', '2026-03-01', '2026-05-01', '2026-07-01', '2026-09-01'].map((m) =>
      ownVisibility(project, m, addDays(m, 27)),
    );
    const spread = Math.max(...months) - Math.min(...months);
    expect(spread).toBeGreaterThan(3);
  });
});

describe('action impact', () => {
  // One keyword action on a project without other completed actions; the same project without it is the control.
  const [base] = demo({ prompts: 40, days: 240 });
  if (!base) throw new Error('no demo project');
  const completedAt = '2026-06-01T12:00:00.000Z';
  const keyword = 'e-bike';
  const action: ActionConfig = {
    id: '5eed0000-0000-4000-8000-0000000000a1',
    category: 'new_content',
    status: 'completed',
    targets: [{ type: 'keyword', value: keyword }],
    expected_impact_min: 10,
    expected_impact_max: 14,
    completed_at: completedAt,
  };
  const control: ProjectConfig = { ...base, actions: base.actions.filter((a) => a.status !== 'completed') };
  const treated: ProjectConfig = { ...control, actions: [...control.actions, action] };
  const targeted = new Set(base.prompts.filter((p) => p.content.toLowerCase().includes(keyword)).map((p) => p.id));
  const others = new Set(
    base.prompts
      .filter((p) => !targeted.has(p.id))
      .slice(0, 12)
      .map((p) => p.id),
  );

  test('the targeted prompts gain about the expected impact after the ramp, compared with before', () => {
    expect(targeted.size).toBeGreaterThanOrEqual(3);
    const before = ownVisibility(treated, '2026-04-01', '2026-05-31', targeted);
    const after = ownVisibility(treated, '2026-06-20', '2026-08-20', targeted);
    const controlBefore = ownVisibility(control, '2026-04-01', '2026-05-31', targeted);
    const controlAfter = ownVisibility(control, '2026-06-20', '2026-08-20', targeted);
    expect(before).toBe(controlBefore);
    expect(after).toBeGreaterThan(before);
    // Difference-in-differences against the same prompts without the action: the drift cancels out.
    const effect = after - before - (controlAfter - controlBefore);
    expect(effect).toBeGreaterThan(5);
    expect(effect).toBeLessThan(20);
  });

  test('prompts the action does not target are unchanged', () => {
    expect(ownVisibility(treated, '2026-06-20', '2026-08-20', others)).toBe(
      ownVisibility(control, '2026-06-20', '2026-08-20', others),
    );
  });

  test('the demo team has completed actions with targets inside the history window', () => {
    const history = Date.parse('2026-11-21') - 240 * 86_400_000;
    const completed = base.actions.filter((a) => a.status === 'completed');
    expect(completed.length).toBeGreaterThanOrEqual(2);
    for (const a of completed) {
      expect(Date.parse(a.completed_at ?? '')).toBeGreaterThan(history);
      expect(a.targets.length).toBeGreaterThan(0);
    }
  });
});
