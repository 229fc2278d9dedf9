import type { Result } from '../../http/handlers.js';
import type { AuditRow } from './repository.js';

type AuditEntry = Result<'listAuditLog'>['data'][number];

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    occurredAt: new Date(row.occurred_at).toISOString(),
    action: row.action,
    actor: { userId: row.actor_user_id, username: row.actor_username, role: row.actor_role, apiKeyId: row.api_key_id },
    resource: { type: row.resource_type, id: row.resource_id },
    before: row.before,
    after: row.after,
    details: row.details,
    source: { ip: row.ip, userAgent: row.user_agent, requestId: row.request_id },
  };
}
