/**
 * The bootstrap state machine, one for both entry points:
 *   initializing → initialized → processing → analyzed → completed, and `error` (with `failed_phase`) from any phase.
 * The `/api/v1/bootstrap/*` steps move it one phase at a time (initialize and prompt run in the background on the
 * server's Background); the public POST /account/projects pipeline runs the same phases back to back (`runAuto`).
 * Retrying re-posts the step that starts the failed phase.
 */
import { BOOTSTRAP_STATUSES, type BootstrapStatus, ERRORS } from '../../../api/index.js';
import { rowError } from '../../net/http-error.js';
import type { ProjectRecord } from '../../state/projects.js';
import type { Stores } from '../../state/stores.js';
import { type BootTarget, completeEffect, initializeEffect, PhaseError, promptEffect } from './effects.js';

export type BootPhase = 'initialize' | 'prompt' | 'analysis' | 'complete';

export interface BootRecord extends BootTarget {
  id: string;
  team_id: string | null;
  name: string;
  status: BootstrapStatus;
  failed_phase: BootPhase | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** Bumped by every step, so that a stale background run does nothing. */
  run: number;
  /** Every status moved to, oldest first (the last HISTORY_LIMIT), whichever entry point moved it. */
  history: Array<{ status: BootstrapStatus; failed_phase: BootPhase | null; at: string }>;
}

const HISTORY_LIMIT = 50;

export interface InitializeInput {
  project_id: string;
  brand_name: string;
  url: string;
  country?: string | undefined;
  language?: string | undefined;
}

export class BootstrapMachine {
  private readonly records = new Map<string, BootRecord>();
  /** Test hook: the next run of this phase fails with this message. */
  plannedFailure: { phase: BootPhase; message: string } | null = null;

  constructor(private readonly state: Stores) {}

  /**
   * Starts (or re-runs) the initialize phase of a project of the public store (unknown id: 404). Refused with 409
   * while a background phase of the project is running.
   */
  initialize(input: InitializeInput): { project_id: string; status: BootstrapStatus } {
    const record = this.find(input.project_id);
    if (record.status === 'initializing' || record.status === 'processing') {
      throw rowError(ERRORS.bootstrapRunning, `Project bootstrap is already running (status ${record.status})`);
    }
    const project = record.project;
    record.brand_name = input.brand_name.trim();
    record.website_url = input.url.trim();
    if (input.country !== undefined) record.country = input.country.trim().toUpperCase() || null;
    if (input.language !== undefined) record.language = input.language.trim().toLowerCase() || null;
    if (project) {
      this.state.projects.update(project, (cfg) => ({
        ...cfg,
        brand_name: record.brand_name,
        website_url: record.website_url,
        location: record.country,
        language: record.language,
      }));
    }
    this.move(record, 'initializing');
    this.inBackground(record, () => {
      this.phase(record, 'initialize', () => initializeEffect(this.state, record));
      this.move(record, 'initialized');
    });
    return { project_id: record.id, status: 'initializing' };
  }

  prompt(projectId: string): { project_id: string; status: BootstrapStatus } {
    const record = this.find(projectId);
    const retry = record.status === 'error' && (record.failed_phase === 'prompt' || record.failed_phase === 'analysis');
    if (record.status !== 'initialized' && !retry) throw rowError(ERRORS.bootstrapNotInitialized);
    this.move(record, 'processing');
    this.inBackground(record, () => {
      this.phase(record, 'prompt', () => promptEffect(this.state, record));
      this.phase(record, 'analysis', () => undefined);
      this.move(record, 'analyzed');
    });
    return { project_id: record.id, status: 'processing' };
  }

  complete(projectId: string): { project_id: string; status: BootstrapStatus } {
    const record = this.find(projectId);
    const retry = record.status === 'error' && record.failed_phase === 'complete';
    if (record.status !== 'analyzed' && !retry) throw rowError(ERRORS.bootstrapNotAnalyzed);
    record.run += 1;
    try {
      this.phase(record, 'complete', () => completeEffect(this.state, record));
      this.move(record, 'completed');
    } catch (error) {
      if (!(error instanceof PhaseError)) throw error;
    }
    return { project_id: record.id, status: record.status };
  }

  /** The public pipeline (POST /account/projects): every phase at once; the outcome its callback reports. */
  runAuto(project: ProjectRecord): { status: 'completed' | 'error'; error: string | null } {
    const id = project.config.id;
    const record = this.records.get(id) ?? (this.adopt(id) as BootRecord);
    record.run += 1;
    try {
      this.move(record, 'initializing');
      this.phase(record, 'initialize', () => initializeEffect(this.state, record));
      this.move(record, 'initialized');
      this.move(record, 'processing');
      this.phase(record, 'prompt', () => promptEffect(this.state, record));
      this.phase(record, 'analysis', () => undefined);
      this.move(record, 'analyzed');
      this.phase(record, 'complete', () => completeEffect(this.state, record));
      this.move(record, 'completed');
      return { status: 'completed', error: null };
    } catch (error) {
      if (!(error instanceof PhaseError)) throw error;
      return { status: 'error', error: record.error };
    }
  }

  view(projectId: string) {
    const record = this.find(projectId);
    const { project: _p, run: _r, prompt_ids: _ids, generated, website_url, history, ...rest } = record;
    return { ...rest, website_url, generated: { ...generated }, history: history.map((h) => ({ ...h })) };
  }

  private find(projectId: string): BootRecord {
    const id = projectId.toLowerCase();
    const record = this.records.get(id) ?? this.adopt(id);
    if (!record) throw rowError(ERRORS.bootstrapProjectNotFound);
    // Until the machine drives it, a public project follows the public pipeline's own record.
    const boot = record.project?.bootstrap;
    if (boot && record.run === 0) Object.assign(record, fromPublic(boot));
    return record;
  }

  /** A project of the public store the machine has not seen yet: its state read from the public pipeline's record. */
  private adopt(id: string): BootRecord | undefined {
    const project = this.state.projects.get(id);
    if (!project) return undefined;
    const cfg = project.config;
    const start = fromPublic(project.bootstrap);
    const record: BootRecord = {
      id,
      team_id: cfg.team_id,
      name: cfg.name,
      brand_name: cfg.brand_name ?? cfg.name,
      website_url: cfg.website_url ?? '',
      country: cfg.location,
      language: cfg.language,
      project,
      generated: { topics: cfg.topics.length, prompts: cfg.prompts.length, competitors: cfg.competitors.length },
      prompt_ids: [],
      ...start,
      created_at: cfg.created_at,
      updated_at: cfg.created_at,
      run: 0,
      history: [
        { status: start.status, failed_phase: start.failed_phase, at: project.bootstrap?.updated_at ?? cfg.created_at },
      ],
    };
    this.records.set(id, record);
    return record;
  }

  private phase(record: BootRecord, phase: BootPhase, effect: () => void): void {
    try {
      const planned = this.plannedFailure;
      if (planned && planned.phase === phase) {
        this.plannedFailure = null;
        throw new PhaseError(planned.message);
      }
      effect();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      record.failed_phase = phase;
      record.error = message;
      this.move(record, 'error');
      throw error instanceof PhaseError ? error : new PhaseError(message);
    }
  }

  private move(record: BootRecord, status: BootstrapStatus): void {
    record.status = status;
    if (status !== 'error') {
      record.failed_phase = null;
      record.error = null;
    }
    record.updated_at = this.state.nowIso();
    const last = record.history[record.history.length - 1];
    // The public pipeline's first move repeats the `initializing` the project was created with: recorded once.
    if (last?.status !== status || status === 'error') {
      record.history.push({ status, failed_phase: record.failed_phase, at: record.updated_at });
      if (record.history.length > HISTORY_LIMIT) record.history.splice(0, record.history.length - HISTORY_LIMIT);
    }
    // The public pipeline's record is the same machine's state: it is written on every move.
    const boot = record.project?.bootstrap;
    if (boot) {
      Object.assign(boot, {
        status,
        error: record.error,
        failed_phase: record.failed_phase,
        updated_at: record.updated_at,
      });
    }
  }

  private inBackground(record: BootRecord, work: () => void): void {
    record.run += 1;
    const run = record.run;
    this.state.background.schedule(() => {
      if (record.run !== run) return;
      try {
        work();
      } catch (error) {
        if (!(error instanceof PhaseError)) throw error;
      }
    });
  }
}

/** The machine's fields as the public pipeline's record holds them (no record: a seeded project, completed). */
function fromPublic(boot: ProjectRecord['bootstrap']): Pick<BootRecord, 'status' | 'failed_phase' | 'error'> {
  if (!boot) return { status: 'completed', failed_phase: null, error: null };
  const loose = boot as { status: string; error: string | null; failed_phase?: BootPhase | null };
  const status = (BOOTSTRAP_STATUSES as readonly string[]).includes(loose.status)
    ? (loose.status as BootstrapStatus)
    : 'initializing';
  const failed = status === 'error' ? (loose.failed_phase ?? 'initialize') : null;
  return { status, failed_phase: failed, error: status === 'error' ? loose.error : null };
}
