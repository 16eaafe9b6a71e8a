/** Webhook registrations (POST /webhooks). The secret is returned once at creation and kept to sign deliveries. */
export interface WebhookRecord {
  id: string;
  team_id: string;
  url: string;
  events: string[];
  is_active: boolean;
  created_at: string;
  secret: string;
}

export class Webhooks {
  private readonly byId = new Map<string, WebhookRecord>();

  add(record: WebhookRecord): void {
    this.byId.set(record.id, record);
  }

  ofTeam(teamId: string): WebhookRecord[] {
    return [...this.byId.values()].filter((w) => w.team_id === teamId);
  }

  get(id: string): WebhookRecord | undefined {
    return this.byId.get(id);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }
}
