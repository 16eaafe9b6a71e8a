/** Content service, tasks over HTTP: create bounds, the pipeline's phases on the simulated clock, list, cancel, errors. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countWords } from '../../../src/reference/services/content/words.js';
import { expectContentError, expectServed, type Harness, startHarness } from './support.js';

// 70 s of background delay: the pipeline's 7 steps are 10 s each on the simulated clock.
const STEP_S = 10;

describe('content tasks', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ demo: false, backgroundDelayMs: 70_000 });
  });
  afterEach(() => h.close());

  const create = (body: unknown) => h.call('POST', '/api/v1/tasks', body);
  const task = async (id: string) => expectServed('getTask', await h.call('GET', `/api/v1/tasks/${id}`));

  it('answers 202 pending, then walks the six phases on the simulated clock and completes', async () => {
    const created = expectServed('createTask', await create({ user_prompt: 'Write about urban composting' }));
    expect(created.status).toBe('pending');
    const pending = await task(created.task_id);
    expect(pending).toMatchObject({ status: 'pending', phase: null, progress: 0, started_at: null, error: null });
    expect(pending.inputs).toEqual({
      user_prompt: 'Write about urban composting',
      keywords: [],
      reference_links: [],
      uploaded_files: [],
      min_words: null,
      max_words: null,
    });
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      await h.advance(STEP_S);
      const t = await task(created.task_id);
      expect(t.status).toBe('processing');
      seen.push(t.phase);
    }
    expect(seen).toEqual([
      'web_research',
      'reference_extraction',
      'file_processing',
      'outline',
      'drafting',
      'seo_optimization',
    ]);
    await h.advance(STEP_S);
    const done = await task(created.task_id);
    expect(done).toMatchObject({ status: 'completed', phase: null, progress: 100 });
    expect(Date.parse(done.completed_at)).toBeGreaterThan(Date.parse(done.started_at));
    const articles = expectServed('listTaskArticles', await h.call('GET', `/api/v1/tasks/${created.task_id}/articles`));
    expect(articles.articles).toHaveLength(1);
    expect(articles.articles[0].task_id).toBe(created.task_id);
    expect(articles.articles[0].created_at).toBe(done.completed_at);
  });

  it('finishes within the background delay in real time', async () => {
    const fast = await startHarness({ demo: false, backgroundDelayMs: 140 });
    try {
      const id = (await fast.call('POST', '/api/v1/tasks', { user_prompt: 'Quick one' })).body.task_id;
      let status = '';
      for (let i = 0; i < 200 && status !== 'completed'; i++) {
        status = (await fast.call('GET', `/api/v1/tasks/${id}`)).body.status;
        if (status !== 'completed') await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe('completed');
    } finally {
      await fast.close();
    }
  });

  it('validates the inputs with the listed bounds (400 VALIDATION_ERROR)', async () => {
    const bad = [
      {},
      { user_prompt: '' },
      { user_prompt: 'x'.repeat(1001) },
      { user_prompt: 'ok', keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) },
      { user_prompt: 'ok', reference_links: Array.from({ length: 6 }, (_, i) => `https://e.com/${i}`) },
      { user_prompt: 'ok', uploaded_files: [{ file_name: 'a.exe', file_type: 'exe' }] },
      { user_prompt: 'ok', min_words: 99 },
      { user_prompt: 'ok', max_words: 10_001 },
      { user_prompt: 'ok', min_words: 900, max_words: 800 },
      { user_prompt: 'ok', surprise: true },
      { user_prompt: '   ' },
      { user_prompt: 'ok', keywords: [''] },
      { user_prompt: 'ok', keywords: ['k'.repeat(101)] },
      { user_prompt: 'ok', reference_links: ['not a url'] },
      { user_prompt: 'ok', reference_links: ['ftp://files.example.com/a'] },
      { user_prompt: 'ok', reference_links: ['javascript:alert(1)'] },
      { user_prompt: 'ok', reference_links: [`https://e.com/${'p'.repeat(2048)}`] },
      {
        user_prompt: 'ok',
        uploaded_files: Array.from({ length: 11 }, (_, i) => ({ file_name: `${i}.txt`, file_type: 'txt' })),
      },
      { user_prompt: 'ok', uploaded_files: [{ file_name: 'a.pdf' }] },
      { user_prompt: 'ok', uploaded_files: [{ file_name: '', file_type: 'pdf' }] },
      { user_prompt: 'ok', uploaded_files: [{ file_name: `${'n'.repeat(252)}.pdf`, file_type: 'pdf' }] },
      {
        user_prompt: 'ok',
        uploaded_files: [{ file_name: 'a.pdf', file_type: 'pdf', size_bytes: 50 * 1024 * 1024 + 1 }],
      },
      { user_prompt: 'ok', uploaded_files: [{ file_name: 'a.pdf', file_type: 'pdf', size_bytes: -1 }] },
      { user_prompt: 'ok', uploaded_files: [{ file_name: 'a.pdf', file_type: 'pdf', url: 'nowhere' }] },
      { user_prompt: 'ok', uploaded_files: [{ file_name: 'a.pdf', file_type: 'Pdf' }] },
      { user_prompt: 'ok', min_words: 100.5 },
      { user_prompt: 'ok', keywords: 'one' },
    ];
    for (const body of bad) expectContentError(await create(body), 400, 'VALIDATION_ERROR');
    expectContentError(await h.call('POST', '/api/v1/tasks', '{not json'), 400, 'VALIDATION_ERROR');
    const ok = await create({
      user_prompt: 'x'.repeat(1000),
      keywords: Array.from({ length: 10 }, (_, i) => `k${i}`),
      reference_links: Array.from({ length: 5 }, (_, i) => `https://e.com/${i}`),
      uploaded_files: ['pdf', 'docx', 'csv', 'xlsx', 'txt'].map((t) => ({ file_name: `f.${t}`, file_type: t })),
      min_words: 100,
      max_words: 10_000,
    });
    expect(ok.status).toBe(202);

    // Upper-case file types are the spec's names: accepted, kept in lower case.
    const upper = await create({
      user_prompt: 'Files',
      uploaded_files: [
        { file_name: 'Q1.XLSX', file_type: 'XLSX', size_bytes: 1024, url: 'https://files.example.com/q1' },
      ],
    });
    expect(upper.status, JSON.stringify(upper.body)).toBe(202);
    expect((await task(upper.body.task_id)).inputs.uploaded_files).toEqual([
      { file_name: 'Q1.XLSX', file_type: 'xlsx', size_bytes: 1024, url: 'https://files.example.com/q1' },
    ]);

    // A brief whose required text (every keyword, link and file) cannot fit max_words is refused, saying why.
    const crowded = await create({
      user_prompt: 'Crowded',
      keywords: Array.from({ length: 10 }, (_, i) => `a rather long keyword phrase number ${i}`),
      reference_links: Array.from({ length: 5 }, (_, i) => `https://e.com/${i}`),
      max_words: 100,
    });
    expectContentError(crowded, 400, 'VALIDATION_ERROR');
    expect(crowded.body.error.message).toMatch(/needs at least \d+ words.*max_words is 100/);
    expect((await create({ user_prompt: 'Crowded', keywords: ['one'], max_words: 100 })).status).toBe(202);
  });

  it('lists newest first with status, limit and offset', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ user_prompt: `Task ${i}` })).body.task_id);
    await h.call('DELETE', `/api/v1/tasks/${ids[0]}`);
    const all = expectServed('listTasks', await h.call('GET', '/api/v1/tasks'));
    expect(all.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([...ids].reverse());
    expect(all).toMatchObject({ total: 3, limit: 20, offset: 0 });
    const page = (await h.call('GET', '/api/v1/tasks?limit=1&offset=1')).body;
    expect(page.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([ids[1]]);
    expect(page.total).toBe(3);
    const cancelled = (await h.call('GET', '/api/v1/tasks?status=cancelled')).body;
    expect(cancelled.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([ids[0]]);
    expect((await h.call('GET', '/api/v1/tasks?status=pending')).body.total).toBe(2);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'status=done']) {
      expectContentError(await h.call('GET', `/api/v1/tasks?${q}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('cancels pending and processing tasks only; a cancelled task stays cancelled without an article', async () => {
    const a = (await create({ user_prompt: 'A' })).body.task_id;
    const cancelled = expectServed('cancelTask', await h.call('DELETE', `/api/v1/tasks/${a}`));
    expect(cancelled).toMatchObject({ status: 'cancelled', progress: 0 });
    expectContentError(await h.call('DELETE', `/api/v1/tasks/${a}`), 400, 'VALIDATION_ERROR');

    const b = (await create({ user_prompt: 'B' })).body.task_id;
    await h.advance(STEP_S * 3);
    const mid = expectServed('cancelTask', await h.call('DELETE', `/api/v1/tasks/${b}`));
    expect(mid.status).toBe('cancelled');
    expect(mid.progress).toBeGreaterThan(0);
    await h.advance(STEP_S * 10);
    expect((await task(b)).status).toBe('cancelled');
    expect((await h.call('GET', `/api/v1/tasks/${b}/articles`)).body.articles).toEqual([]);

    const c = (await create({ user_prompt: 'C' })).body.task_id;
    await h.advance(STEP_S * 7);
    expectContentError(await h.call('DELETE', `/api/v1/tasks/${c}`), 400, 'VALIDATION_ERROR');
    expect((await task(c)).status).toBe('completed');
  });

  it('answers TASK_NOT_FOUND for unknown and malformed ids', async () => {
    const unknown = '11111111-1111-4111-8111-111111111111';
    for (const [method, path] of [
      ['GET', `/api/v1/tasks/${unknown}`],
      ['DELETE', `/api/v1/tasks/${unknown}`],
      ['GET', `/api/v1/tasks/${unknown}/articles`],
      ['GET', '/api/v1/tasks/not-a-uuid'],
    ] as const) {
      expectContentError(await h.call(method, path), 404, 'TASK_NOT_FOUND');
    }
  });

  it('fails a task in its phase with LLM_ERROR or WORKFLOW_ERROR, and its articles answer that error', async () => {
    h.services().content.nextFailure = { phase: 'drafting', code: 'LLM_ERROR', message: 'The model timed out' };
    const llm = (await create({ user_prompt: 'Doomed' })).body.task_id;
    h.services().content.nextFailure = { phase: 'web_research', code: 'WORKFLOW_ERROR', message: 'Search step failed' };
    const wf = (await create({ user_prompt: 'Doomed too' })).body.task_id;
    await h.advance(STEP_S * 5);
    expect((await task(llm)).status).toBe('processing');
    await h.advance(STEP_S);
    const failed = await task(llm);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'LLM_ERROR', message: 'The model timed out' } });
    expect(failed.completed_at).not.toBeNull();
    expectContentError(await h.call('GET', `/api/v1/tasks/${llm}/articles`), 502, 'LLM_ERROR');
    expect((await task(wf)).error.code).toBe('WORKFLOW_ERROR');
    expectContentError(await h.call('GET', `/api/v1/tasks/${wf}/articles`), 500, 'WORKFLOW_ERROR');
    expectContentError(await h.call('DELETE', `/api/v1/tasks/${llm}`), 400, 'VALIDATION_ERROR');
  });

  it('answers 429 RATE_LIMIT_ERROR beyond five concurrent tasks and 503 DATABASE_ERROR on a storage outage', async () => {
    const busy: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await create({ user_prompt: `T${i}` });
      expect(reply.status).toBe(202);
      busy.push(reply.body.task_id);
    }
    const refused = await create({ user_prompt: 'one too many' });
    expectContentError(refused, 429, 'RATE_LIMIT_ERROR');
    expect(refused.body.error.message).toMatch(/5 tasks are pending or processing \(limit 5\)/);
    // A cancelled task frees its slot.
    await h.call('DELETE', `/api/v1/tasks/${busy[0]}`);
    expect((await create({ user_prompt: 'in the freed slot' })).status).toBe(202);
    expectContentError(await create({ user_prompt: 'full again' }), 429, 'RATE_LIMIT_ERROR');
    await h.advance(STEP_S * 7);
    expect((await create({ user_prompt: 'room again' })).status).toBe(202);

    h.services().content.storageOutage = true;
    expectContentError(await h.call('GET', '/api/v1/tasks'), 503, 'DATABASE_ERROR');
    expectContentError(await h.call('GET', '/api/v1/articles'), 503, 'DATABASE_ERROR');
    h.services().content.storageOutage = false;
    expect((await h.call('GET', '/api/v1/tasks')).status).toBe(200);
  });

  it('writes an article honouring prompt, keywords, links, files and word bounds, deterministically', async () => {
    const brief = {
      user_prompt: 'Write a guide about rainwater harvesting for small farms',
      keywords: ['rain barrels', 'drip irrigation', 'water rights'],
      reference_links: ['https://water.example.org/harvest', 'https://farm.example.com/drip'],
      uploaded_files: [{ file_name: 'rainfall.csv', file_type: 'csv' }],
      min_words: 300,
      max_words: 450,
    };
    const first = (await create(brief)).body.task_id;
    const second = (await create(brief)).body.task_id;
    await h.advance(STEP_S * 7);
    const [a] = (await h.call('GET', `/api/v1/tasks/${first}/articles`)).body.articles;
    const [b] = (await h.call('GET', `/api/v1/tasks/${second}/articles`)).body.articles;
    expect(a.title).toBe('Rainwater harvesting for small farms');
    expect(a.content.startsWith(`# ${a.title}\n`)).toBe(true);
    const words = countWords(a.content);
    expect(words).toBeGreaterThanOrEqual(300);
    expect(words).toBeLessThanOrEqual(450);
    for (const k of brief.keywords) expect(a.content).toContain(k);
    for (const link of brief.reference_links) expect(a.content).toContain(`](${link})`);
    expect(a.content).toContain('rainfall.csv');
    expect(a.keywords).toEqual(brief.keywords);
    expect(a.data_sources.map((s: { url: string }) => s.url)).toEqual([...brief.reference_links, 'file:rainfall.csv']);
    expect(a).toMatchObject({
      publication_status: 'draft',
      published_at: null,
      version: 1,
      slug: 'rainwater-harvesting-for-small-farms',
    });
    // Same brief, same seed: the same text; the slug stays unique.
    expect(b.content).toBe(a.content);
    expect(b.slug).toBe('rainwater-harvesting-for-small-farms-2');

    const bounds: Array<[number | null, number]> = [
      [100, 100],
      [2000, 2100],
      [null, 150],
    ];
    for (const [min, max] of bounds) {
      const id = (
        await create({ user_prompt: 'Bounds', keywords: ['alpha'], min_words: min ?? undefined, max_words: max })
      ).body.task_id;
      await h.advance(STEP_S * 7);
      const [article] = (await h.call('GET', `/api/v1/tasks/${id}/articles`)).body.articles;
      const n = countWords(article.content);
      expect(n).toBeGreaterThanOrEqual(min ?? 100);
      expect(n).toBeLessThanOrEqual(max);
    }
  });
});
