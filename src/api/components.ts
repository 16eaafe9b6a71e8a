/**
 * The named shared schemas: each becomes `#/components/schemas/<name>` in the OpenAPI document, and every use of
 * it inside an endpoint schema becomes a `$ref`. Add a resource here when it is worth a name of its own.
 */
import type * as z from 'zod';
import { AliasErrorBody, ContentErrorBody, ErrorBody } from './errors.js';
import { Action, ActionExecution, ActionTarget } from './schemas/actions.js';
import { AliasList, BrandAlias, NextAction } from './schemas/aliases.js';
import {
  ChatItem,
  CompetitorMentioned,
  OverviewItem,
  PromptAnalytics,
  PromptDomainItem,
  PromptUrlItem,
  ProviderMetric,
  ReferenceItem,
  TrendSeries,
  VisibilityTrend,
} from './schemas/analytics.js';
import { BootstrapProject } from './schemas/bootstrap.js';
import { BrandInfo } from './schemas/common.js';
import { Competitor, CompetitorCreateItem, CompetitorMetrics } from './schemas/competitors.js';
import { Article, Task, UploadedFile } from './schemas/content.js';
import { Project } from './schemas/projects.js';
import { Prompt, PromptCamel, PromptCreateItem, SuggestedPromptItem } from './schemas/prompts.js';
import { RecordedUrl } from './schemas/recording.js';
import {
  SourceChatItemServed,
  SourceDetailServed,
  SourceDomain,
  SourceOpportunity,
  SourcesAnalytics,
} from './schemas/sources.js';
import { Member, Team } from './schemas/teams.js';
import { BootstrapCallback, Webhook, WebhookCreated, WorkflowDelivery } from './schemas/webhooks.js';

export const COMPONENTS: Record<string, z.ZodType> = {
  ErrorBody,
  AliasErrorBody,
  ContentErrorBody,
  Project,
  Prompt,
  PromptCamel,
  PromptCreateItem,
  SuggestedPromptItem,
  ProviderMetric,
  PromptAnalytics,
  BrandInfo,
  ReferenceItem,
  ChatItem,
  PromptDomainItem,
  PromptUrlItem,
  CompetitorMetrics,
  Competitor,
  CompetitorCreateItem,
  CompetitorMentioned,
  OverviewItem,
  TrendSeries,
  VisibilityTrend,
  SourceDomain,
  SourceOpportunity,
  SourcesAnalytics,
  SourceDetail: SourceDetailServed,
  SourceChatItem: SourceChatItemServed,
  ActionTarget,
  ActionExecution,
  Action,
  BrandAlias,
  AliasList,
  NextAction,
  RecordedUrl,
  Webhook,
  WebhookCreated,
  BootstrapCallback,
  WorkflowDelivery,
  UploadedFile,
  Task,
  Article,
  BootstrapProject,
  Team,
  Member,
};
