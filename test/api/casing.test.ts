import { describe, expect, it } from 'vitest';
import { endpoint, promptTypeFromCamel, promptTypeToCamel } from '../../src/api/index.js';
import { ids } from './payloads.js';

describe('casing', () => {
  it('marks exactly the five camelCase endpoints', () => {
    const camel = ['createPrompts', 'updatePrompt', 'suggestPrompts', 'recommendPromptsFromUrls', 'createCompetitors'];
    for (const id of camel) expect(endpoint(id as 'createPrompts').casing).toBe('camel');
    expect(endpoint('listPrompts').casing).toBe('snake');
  });

  it('prompt create takes camelCase and refuses snake_case', () => {
    const body = endpoint('createPrompts').body;
    expect(body.safeParse({ prompts: ['a'], topicId: ids.topic }).success).toBe(true);
    expect(body.safeParse({ prompts: ['a'], topic_id: ids.topic }).success).toBe(false);
    expect(body.safeParse({ prompts: ['  '], topicId: ids.topic }).success).toBe(false);
    expect(body.safeParse({ prompts: [], topicId: ids.topic }).success).toBe(false);
  });

  it('prompt update accepts the capitalized types only', () => {
    const body = endpoint('updatePrompt').body;
    expect(body.safeParse({ promptType: 'Inactive' }).success).toBe(true);
    expect(body.safeParse({ promptType: 'inactive' }).success).toBe(false);
    expect(body.safeParse({ prompt_type: 'Inactive' }).success).toBe(false);
  });

  it('list views carry lowercase snake_case types, camel results capitalized ones', () => {
    const item = {
      id: ids.prompt,
      projectId: ids.project,
      content: 'x',
      promptType: 'UrlRecommended',
      topicId: null,
      country: null,
      createdAt: '2025-06-01T00:00:00Z',
    };
    const result = endpoint('createPrompts').data;
    expect(result.safeParse({ projectId: ids.project, created: 1, prompts: [item] }).success).toBe(true);
    expect(
      result.safeParse({ projectId: ids.project, created: 1, prompts: [{ ...item, promptType: 'url_recommended' }] })
        .success,
    ).toBe(false);
    expect(result.safeParse({ project_id: ids.project, created: 1, prompts: [item] }).success).toBe(false);
    expect(promptTypeToCamel('url_recommended')).toBe('UrlRecommended');
    expect(promptTypeFromCamel('UrlRecommended')).toBe('url_recommended');
  });

  it('competitor create results are camelCase, the list is snake_case', () => {
    expect(
      endpoint('createCompetitors').data.safeParse({ project_id: ids.project, created: 0, competitors: [] }).success,
    ).toBe(false);
    expect(
      endpoint('createCompetitors').body.safeParse({ competitors: [{ name: 'A', website: 'a.com' }] }).success,
    ).toBe(true);
  });

  it('spec-worded validation failures carry the spec detail as their message', () => {
    const account = endpoint('createAccount').body.safeParse({ email: 'nobody' });
    expect(account.success || account.error.issues[0]?.message).toBe('A valid email is required');
    const project = endpoint('createProject').body.safeParse({
      brand_name: ' ',
      brand_url: 'https://a.example',
      webhook_url: 'https://b.example',
    });
    expect(project.success || project.error.issues[0]?.message).toBe('brand_name is required');
    const overview = endpoint('getOverview').query.safeParse({ prompt_type: 'pending' });
    expect(overview.success || overview.error.issues[0]?.message).toBe("prompt_type must be 'active' or 'suggested'");
  });
});
