import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/index.js';
import { addDays } from '../../src/core/days.js';
import { createLogger } from '../../src/core/log.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { contentOf, openWarehouse, query, runSync, settings, startWorld, tempDir, truthClient } from './support.js';

/** The machine's UTC date: what the sync would assume without --today and without the API's Date header. */
const LOCAL_DAY = new Date().toISOString().slice(0, 10);

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

function warnings() {
  const lines: string[] = [];
  const stream = { write: (t: string) => lines.push(t) } as unknown as NodeJS.WritableStream;
  return { logger: createLogger({ format: 'json', level: 'warn', stream }), lines };
}

async function lastFinishedDay(db: string): Promise<string> {
  const wh = await openWarehouse(db);
  try {
    const [row] = await query<{ d: string }>(wh, "SELECT strftime(max(range_to), '%Y-%m-%d') AS d FROM ops.sync_state");
    return row?.d ?? '';
  } finally {
    wh.close();
  }
}

describe("the API's day", () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startWorld({ seed: 41, projects: 1, prompts: 4, historyDays: 8 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('without --today, a server clock behind the local date is followed: same rows as --today, a warning', async () => {
    expect(LOCAL_DAY > TODAY).toBe(true);
    const { logger, lines } = warnings();
    const db = `${tmp.dir}/behind.duckdb`;
    const wh = await openWarehouse(db);
    const result = await runSync(server, wh, { settings: settings(LOCAL_DAY), todayFromApi: true, logger });
    wh.close();
    expect(result.status).toBe('succeeded');
    expect(result.plan?.today).toBe(TODAY);
    const warned = lines.map((l) => JSON.parse(l)).find((l) => /API's day differs/.test(l.msg));
    expect(warned).toMatchObject({ level: 'warn', apiDay: TODAY, localDay: LOCAL_DAY });
    expect(await lastFinishedDay(db)).toBe(TODAY);
    const explicit = await openWarehouse(`${tmp.dir}/explicit.duckdb`);
    expect((await runSync(server, explicit, { settings: settings(TODAY) })).status).toBe('succeeded');
    const again = await openWarehouse(db);
    expect(await contentOf(again)).toEqual(await contentOf(explicit));
    again.close();
    explicit.close();
  });

  it('a --today after the API day is brought back to it; the next day still fetches every answer of that day', async () => {
    const { logger, lines } = warnings();
    const db = `${tmp.dir}/ahead.duckdb`;
    let wh = await openWarehouse(db);
    const ahead = await runSync(server, wh, { settings: settings(addDays(TODAY, 1)), logger, streams: ['chats'] });
    wh.close();
    expect(ahead.plan?.today).toBe(TODAY);
    expect(lines.some((l) => /--today is after the API's day/.test(l))).toBe(true);
    // Never a day after the API's day marked finished.
    expect(await lastFinishedDay(db)).toBe(TODAY);
    control.advanceClock(server.state, { days: 1 });
    const tomorrow = addDays(TODAY, 1);
    wh = await openWarehouse(db);
    const next = await runSync(server, wh, { settings: settings(tomorrow), streams: ['chats'] });
    expect(next.status).toBe('succeeded');
    const landed = await query<{ n: number }>(
      wh,
      `SELECT count(*) AS n FROM raw.chats WHERE chat_date = '${tomorrow}'`,
    );
    wh.close();
    const client = truthClient(server);
    let served = 0;
    const projects = await client.call(catalogue.listProjects);
    for (const project of projects.ok ? projects.data : []) {
      const prompts = await client.call(catalogue.listPrompts, { path: { project_id: project.id } });
      for (const prompt of prompts.ok ? prompts.data.prompts : []) {
        if (!['active', 'inactive'].includes(prompt.prompt_type)) continue;
        const chats = await client.call(catalogue.getPromptChats, {
          path: { project_id: project.id, prompt_id: prompt.id },
          query: { date_from: tomorrow, date_to: tomorrow },
        });
        served += chats.ok ? chats.data.items.filter((c) => c.date.slice(0, 10) === tomorrow).length : 0;
      }
    }
    await client.close();
    expect(served).toBeGreaterThan(0);
    expect(landed[0]?.n).toBe(served);
  });
});

describe('a server clock ahead of the local date', () => {
  it('is followed without --today: the sync goes up to the API day, with a warning', async () => {
    const apiDay = addDays(LOCAL_DAY, 3);
    const server = await startWorld({ seed: 43, projects: 1, prompts: 3, historyDays: 6, today: apiDay });
    try {
      const { logger, lines } = warnings();
      const db = `${tmp.dir}/server-ahead.duckdb`;
      const wh = await openWarehouse(db);
      const result = await runSync(server, wh, {
        settings: settings(LOCAL_DAY),
        todayFromApi: true,
        logger,
        streams: ['chats'],
      });
      const [max] = await query<{ d: string }>(wh, "SELECT strftime(max(chat_date), '%Y-%m-%d') AS d FROM raw.chats");
      wh.close();
      expect(result.status).toBe('succeeded');
      expect(result.plan?.today).toBe(apiDay);
      expect(max?.d).toBe(apiDay);
      expect(lines.some((l) => l.includes(`"apiDay":"${apiDay}"`))).toBe(true);
      expect(await lastFinishedDay(db)).toBe(apiDay);
    } finally {
      await server.close();
    }
  });
});
