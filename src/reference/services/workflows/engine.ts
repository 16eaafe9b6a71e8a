/**
 * The execute workflow of a `new_content` action: outline → (checkpoint) → draft → (checkpoint) → final review →
 * (checkpoint) → completed. Each stage is produced in the background (the server's Background), then the workflow
 * pauses and an `action.checkpoint` event goes to the team's webhooks. Answers: `approve` moves on, `edit` moves on
 * with the caller's text, `regenerate` produces the stage again, `reject` fails the workflow (`action.failed`).
 * Approving the final review stores the article in the content service and sends `action.completed`. The action
 * moves to `in_progress` when the workflow starts and to `completed` when it completes.
 */
import { CHECKPOINT_OPTION_ACTIONS, WORKFLOW_CHECKPOINTS } from '../../../api/index.js';
import { fail } from '../../net/http-error.js';
import { replaceAction } from '../../state/projects.js';
import type { ServicesOptions } from '../../state/services-options.js';
import type { Stores } from '../../state/stores.js';
import { uuidFrom } from '../../world/hash.js';
import type { ContentStore } from '../content/store.js';
import { type Brief, outlineMarkdown, writeArticle } from '../content/writer.js';
import { type DeliveryRecord, deliver } from './delivery.js';

export const CHECKPOINTS = WORKFLOW_CHECKPOINTS;
export type Checkpoint = (typeof CHECKPOINTS)[number];
export const ANSWERS = CHECKPOINT_OPTION_ACTIONS;
export type Answer = (typeof ANSWERS)[number];

const OPTIONS = [
  { action: 'approve', label: 'Approve and continue' },
  { action: 'edit', label: 'Continue with my edited text' },
  { action: 'regenerate', label: 'Generate this step again' },
  { action: 'reject', label: 'Reject and stop the workflow' },
];

export interface WorkflowRecord {
  workflow_id: string;
  project_id: string;
  team_id: string;
  action_id: string;
  status: 'running' | 'awaiting_checkpoint' | 'completed' | 'failed';
  checkpoint: Checkpoint | null;
  /** What is being reviewed at the current checkpoint. */
  content: string | null;
  brief: Brief;
  variant: number;
  /** Text approved or edited at each checkpoint so far. */
  approved: Partial<Record<Checkpoint, string>>;
  answers: Array<{ checkpoint: Checkpoint; answer: Answer; at: string }>;
  result: { title: string; content: string; article_id: string } | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  deliveries: DeliveryRecord[];
  run: number;
  events: number;
}

export class WorkflowEngine {
  private readonly byId = new Map<string, WorkflowRecord>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Test hook: producing this stage fails the workflow with this message. */
  plannedFailure: { checkpoint: Checkpoint; message: string } | null = null;

  constructor(
    private readonly state: Stores,
    private readonly content: () => ContentStore,
    private readonly options: () => ServicesOptions,
  ) {}

  start(projectId: string, teamId: string, actionId: string): WorkflowRecord {
    const project = this.state.projects.get(projectId);
    const action = project?.config.actions.find((a) => a.id === actionId);
    const details = project?.actionDetails.get(actionId);
    if (!project || !action || !details) throw fail(404, 'Action not found');
    if (action.category !== 'new_content') {
      throw fail(400, `Only new_content actions have an execute workflow (this one is ${action.category})`);
    }
    const open = [...this.byId.values()].find(
      (w) => w.action_id === actionId && (w.status === 'running' || w.status === 'awaiting_checkpoint'),
    );
    if (open) throw fail(409, `A workflow is already running for this action (${open.workflow_id})`);
    if (action.status === 'completed' || action.status === 'ignored') {
      throw fail(409, `An action that is ${action.status} cannot be executed`);
    }
    const now = this.state.nowIso();
    const workflow: WorkflowRecord = {
      workflow_id: this.state.ids.next('workflow'),
      project_id: project.config.id,
      team_id: teamId,
      action_id: actionId,
      status: 'running',
      checkpoint: null,
      content: null,
      brief: {
        user_prompt: `${details.title}. ${details.description}`.slice(0, 1000),
        keywords: action.targets.filter((t) => t.type === 'keyword').map((t) => t.value),
        reference_links: action.targets.filter((t) => t.type === 'url').map((t) => t.value),
        uploaded_files: [],
        min_words: null,
        max_words: null,
        title: details.title,
      },
      variant: 0,
      approved: {},
      answers: [],
      result: null,
      error: null,
      created_at: now,
      updated_at: now,
      deliveries: [],
      run: 0,
      events: 0,
    };
    this.byId.set(workflow.workflow_id, workflow);
    this.setActionStatus(workflow, 'in_progress');
    this.produce(workflow, 'outline');
    return workflow;
  }

  /** A workflow of this team (and of this project, when given): another's is answered like an unknown one. */
  get(workflowId: string, teamId: string, projectId?: string): WorkflowRecord {
    const workflow = this.byId.get(workflowId.toLowerCase());
    if (!workflow || workflow.team_id !== teamId || (projectId !== undefined && workflow.project_id !== projectId)) {
      throw fail(404, 'Workflow not found');
    }
    return workflow;
  }

  answer(workflow: WorkflowRecord, answer: Answer, opts: { content?: string; checkpoint?: string }): WorkflowRecord {
    const at = workflow.checkpoint;
    if (workflow.status !== 'awaiting_checkpoint' || !at) {
      throw fail(409, `Workflow is not waiting at a checkpoint (it is ${workflow.status})`);
    }
    if (opts.checkpoint !== undefined && opts.checkpoint !== at) {
      throw fail(409, `Workflow is waiting at the ${at} checkpoint, not ${opts.checkpoint}`);
    }
    if (answer === 'edit' && (opts.content === undefined || opts.content.trim() === '')) {
      throw fail(400, 'content is required to edit a checkpoint');
    }
    workflow.answers.push({ checkpoint: at, answer, at: this.state.nowIso() });
    if (answer === 'reject') {
      this.fail(workflow, `Rejected at the ${at} checkpoint`);
      return workflow;
    }
    if (answer === 'regenerate') {
      workflow.variant += 1;
      this.produce(workflow, at);
      return workflow;
    }
    workflow.approved[at] = answer === 'edit' ? (opts.content as string) : (workflow.content as string);
    const next = CHECKPOINTS[CHECKPOINTS.indexOf(at) + 1];
    if (next) this.produce(workflow, next);
    else this.finish(workflow);
    return workflow;
  }

  /** Resolves when every delivery started so far has finished (tests). */
  async drained(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private produce(workflow: WorkflowRecord, checkpoint: Checkpoint): void {
    this.touch(workflow, 'running', null, null);
    workflow.run += 1;
    const run = workflow.run;
    this.state.background.schedule(() => {
      if (workflow.run !== run || workflow.status !== 'running') return;
      const planned = this.plannedFailure;
      if (planned && planned.checkpoint === checkpoint) {
        this.plannedFailure = null;
        this.fail(workflow, planned.message);
        return;
      }
      this.touch(workflow, 'awaiting_checkpoint', checkpoint, this.stageText(workflow, checkpoint));
      this.emit(workflow, 'action.checkpoint', {
        checkpoint,
        content: workflow.content,
        options: OPTIONS.map((o) => ({ ...o })),
      });
    });
  }

  private stageText(workflow: WorkflowRecord, checkpoint: Checkpoint): string {
    const seed = this.state.options.seed;
    if (checkpoint === 'outline') return outlineMarkdown(workflow.brief, workflow.variant);
    if (checkpoint === 'draft') return writeArticle(workflow.brief, seed, workflow.variant).content;
    const draft = workflow.approved.draft ?? writeArticle(workflow.brief, seed, workflow.variant).content;
    const article = writeArticle(workflow.brief, seed, workflow.variant);
    return `---\nseo_title: ${article.seo_title}\nseo_description: ${article.seo_description}\n---\n\n${draft}`;
  }

  private finish(workflow: WorkflowRecord): void {
    const written = writeArticle(workflow.brief, this.state.options.seed, workflow.variant);
    const final = workflow.approved.final_review ?? written.content;
    const content = final.replace(/^---\n[\s\S]*?\n---\n\n/, '');
    const article = this.content().addArticle(null, { ...written, content }, this.state.nowIso());
    workflow.result = { title: article.title, content: article.content, article_id: article.article_id };
    this.touch(workflow, 'completed', null, null);
    this.setActionStatus(workflow, 'completed');
    this.emit(workflow, 'action.completed', { result: { ...workflow.result } });
  }

  private fail(workflow: WorkflowRecord, message: string): void {
    workflow.error = message;
    this.touch(workflow, 'failed', null, null);
    this.emit(workflow, 'action.failed', { error: message });
  }

  private touch(
    workflow: WorkflowRecord,
    status: WorkflowRecord['status'],
    checkpoint: Checkpoint | null,
    content: string | null,
  ): void {
    workflow.status = status;
    workflow.checkpoint = checkpoint;
    workflow.content = content;
    workflow.updated_at = this.state.nowIso();
  }

  private setActionStatus(workflow: WorkflowRecord, status: 'in_progress' | 'completed'): void {
    const project = this.state.projects.get(workflow.project_id);
    const action = project?.config.actions.find((a) => a.id === workflow.action_id);
    const details = project?.actionDetails.get(workflow.action_id);
    if (!project || !action || !details || action.status === status || action.status === 'completed') return;
    const now = this.state.nowIso();
    const next = { ...action, status, completed_at: status === 'completed' ? now : action.completed_at };
    details.updated_at = now;
    details.status_history.push({ status, at: now });
    this.state.projects.update(project, (cfg) => replaceAction(cfg, next));
  }

  private emit(workflow: WorkflowRecord, event: string, extra: Record<string, unknown>): void {
    workflow.events += 1;
    const body = JSON.stringify({
      event,
      timestamp: this.state.nowIso(),
      data: { action_id: workflow.action_id, workflow_id: workflow.workflow_id, ...extra },
    });
    const hooks = this.state.webhooks.ofTeam(workflow.team_id).filter((h) => h.is_active && h.events.includes(event));
    for (const hook of hooks) {
      const record: DeliveryRecord = {
        delivery_id: uuidFrom(this.state.options.seed, 'delivery', workflow.workflow_id, workflow.events, hook.id),
        webhook_id: hook.id,
        event,
        attempts: [],
        delivered: false,
        done: false,
      };
      workflow.deliveries.push(record);
      const ctx = {
        clock: this.state.clock,
        nowIso: () => this.state.nowIso(),
        options: this.options,
        current: (id: string) => this.state.webhooks.get(id),
      };
      const promise = deliver(ctx, hook, record, body).finally(() => this.inFlight.delete(promise));
      this.inFlight.add(promise);
    }
  }
}

export function workflowView(w: WorkflowRecord) {
  return {
    workflow_id: w.workflow_id,
    action_id: w.action_id,
    project_id: w.project_id,
    status: w.status,
    checkpoint: w.checkpoint,
    content: w.content,
    options: w.status === 'awaiting_checkpoint' ? OPTIONS.map((o) => ({ ...o })) : [],
    answers: w.answers.map((a) => ({ ...a })),
    result: w.result ? { ...w.result } : null,
    error: w.error,
    created_at: w.created_at,
    updated_at: w.updated_at,
    deliveries: w.deliveries.map((d) => ({
      delivery_id: d.delivery_id,
      webhook_id: d.webhook_id,
      event: d.event,
      delivered: d.delivered,
      done: d.done,
      attempts: d.attempts.map((a) => ({ ...a })),
    })),
  };
}
