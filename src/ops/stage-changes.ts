/** What each stage of `vwh run` changed, in words: the pipeline's log lines and the run's summary say the same. */

export const n = (value: unknown) => Number(value ?? 0).toLocaleString('en-US');
export const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;

/**
 * What a stage changed, from its counts: the first line beside the stage, more lines under it. A run that found
 * nothing new says so (no rows landed, every model reused, every lake file kept) instead of looking like the first.
 */
export function whatChanged(stage: string, c: Record<string, unknown>, status = 'succeeded'): string[] {
  switch (stage) {
    case 'events':
      return Number(c.new ?? 0) > 0 ? [`${plural(Number(c.new), 'new webhook event')}`] : [];
    case 'sync': {
      if (c.units === undefined) return [];
      const planned = c.units_planned === undefined ? '' : `/${n(c.units_planned)}`;
      const head = `${n(c.units)}${planned} units, ${plural(Number(c.requests ?? 0), 'request')}`;
      const rows = Object.entries((c.rows ?? {}) as Record<string, number>).filter(([, count]) => count > 0);
      if (rows.length === 0)
        return [`${head}; no rows landed${status === 'succeeded' ? ' (nothing new since the last sync)' : ''}`];
      const total = rows.reduce((sum, [, count]) => sum + count, 0);
      return [`${head}; ${plural(total, 'row')} landed:`, rows.map(([t, count]) => `${t} ${n(count)}`).join(', ')];
    }
    case 'models': {
      if (c.built === undefined) return [];
      const days = Number(c.days_reprocessed ?? 0);
      return [
        `${n(c.built)} built, ${n(c.reused)} reused (no input changed); ` +
          (days > 0 ? `${plural(days, 'day')} re-processed (${c.days})` : 'no day re-processed'),
      ];
    }
    case 'exports': {
      const out: string[] = [];
      const lake = c.parquet as { files?: number; kept_files?: number } | undefined;
      if (lake) out.push(`lake ${n(lake.files)} files rewritten, ${n(lake.kept_files)} kept`);
      const html = c.html as { kept?: boolean } | undefined;
      if (html) out.push(html.kept ? 'HTML report kept (no model changed)' : 'HTML report written');
      return out.length ? [out.join('; ')] : [];
    }
    case 'publish':
      return c.tables === undefined ? [] : [`${plural(Number(c.tables), 'table')} copied`];
    case 'alerts':
      return c.problems === undefined
        ? []
        : [Number(c.problems) > 0 ? plural(Number(c.problems), 'problem') : 'no alert'];
    default:
      return [];
  }
}
