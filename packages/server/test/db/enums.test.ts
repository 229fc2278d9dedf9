import type { ViewedResource } from '../../src/db/schema.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { enumValues, loadContract } from '../../src/contract.js';
import { useTestApp } from '../support/app.js';

const t = useTestApp();

type Node = Record<string, unknown>;
/** The enum of a property of a contract schema, following `properties` (and nullable/composed wrappers). */
function propertyEnum(schema: string, ...path: string[]): string[] {
  let node = loadContract().components.schemas[schema] as Node;
  const unwrap = (n: Node): Node[] => [
    n,
    ...(['allOf', 'oneOf', 'anyOf'] as const).flatMap((k) => ((n[k] as Node[]) ?? []).flatMap(unwrap)),
  ];
  for (const key of path) {
    const found = unwrap(node)
      .map((n) => (n.properties as Record<string, Node> | undefined)?.[key])
      .find(Boolean);
    if (!found) throw new Error(`${schema}.${path.join('.')} not found in the contract`);
    node = found;
  }
  const values = unwrap(node)
    .map((n) => n.enum)
    .find(Array.isArray) as string[] | undefined;
  if (!values) throw new Error(`${schema}.${path.join('.')} has no enum`);
  return values;
}

/** Every CHECK list of the database and the contract values it must hold. */
const expected: Record<string, string[]> = {
  roles_access_level_check: enumValues('RoleAccessLevel'),
  organizations_type_check: enumValues('OrganizationType'),
  actors_actor_role_check: enumValues('ActorRole'),
  categories_scope_check: enumValues('CategoryScope'),
  vehicle_types_category_check: enumValues('VehicleTypeCategory'),
  transports_status_check: enumValues('TransportStatus'),
  transport_status_history_from_status_check: enumValues('TransportStatus'),
  transport_status_history_to_status_check: enumValues('TransportStatus'),
  transport_status_history_action_check: enumValues('TransportHistoryAction'),
  transport_documents_type_check: enumValues('DocumentType'),
  complaints_status_check: enumValues('ComplaintStatus'),
  complaint_status_history_status_check: enumValues('ComplaintStatus'),
  complaint_status_history_created_by_type_check: propertyEnum('ComplaintStatusHistoryEntry', 'createdBy', 'type'),
  complaint_notifications_channel_check: propertyEnum('ComplaintNotification', 'channel'),
  complaint_notifications_status_check: propertyEnum('ComplaintNotification', 'status'),
  forum_topics_status_check: enumValues('ForumTopicStatus'),
  // REMOVE withdraws a vote: it is never stored.
  forum_votes_vote_check: enumValues('ForumVoteAction').filter((v) => v !== 'REMOVE'),
  forum_reports_reason_check: enumValues('ForumReportReason'),
  forum_reports_status_check: enumValues('ForumReportStatus'),
  announcements_status_check: enumValues('AnnouncementStatus'),
  announcements_priority_check: enumValues('AnnouncementPriority'),
  tutorials_difficulty_check: enumValues('TutorialDifficulty'),
  tutorials_status_check: enumValues('TutorialStatus'),
  // Internal to the server (which content a view counts for): not part of the contract.
  content_views_resource_type_check: ['ANNOUNCEMENT', 'FORUM_TOPIC', 'TUTORIAL'] satisfies ViewedResource[],
  // The picture types the avatar upload accepts (checked by their bytes), as the contract's description states.
  users_avatar_mime_check: ['image/jpeg', 'image/png', 'image/webp'],
  webhook_deliveries_status_check: enumValues('WebhookDeliveryStatus'),
  transport_milestones_type_check: enumValues('TransportMilestoneType'),
  // The administrators' e-mails are internal to the server (not listed by the API).
  admin_notifications_status_check: ['QUEUED', 'SENT', 'FAILED'],
};

/** CHECK constraints that tie columns together (a rule, not a list of allowed values). */
const RULES = new Set(['transports_validation_status_check']);

describe('enumerations of the database and the contract', () => {
  it('hold the same values in every CHECK list of the migrated database', async () => {
    const { rows } = await sql<{ name: string; definition: string }>`
      select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where contype = 'c' and conrelid <> 0`.execute(
      t.db,
    );
    const lists = Object.fromEntries(
      rows
        .filter((r) => !RULES.has(r.name) && /= ANY \(+ARRAY\[/.test(r.definition))
        .map((r) => [r.name, [...r.definition.matchAll(/'([^']*)'::text/g)].map((m) => m[1]!).sort()]),
    );
    const want = Object.fromEntries(Object.entries(expected).map(([name, values]) => [name, [...values].sort()]));
    expect(lists).toEqual(want);
  });
});
