/**
 * The constraints and unique indexes of the schema that the code names, in one table: a module
 * that tells one violation from another (`isUniqueViolation(error, name)`) names it from here, so
 * a misspelt or unknown name is a type error, and test/db/constraints.test.ts checks that each
 * name exists in the migrated database. A unique one carries how the contract's ALREADY_EXISTS
 * names it (the resource and the field whose value is taken), used when a handler that checks
 * first and then writes loses a race to a parallel request: the constraint then decides, and its
 * violation becomes the same 409 the check would have given (lib/db-errors.ts).
 */
export const CONSTRAINTS = {
  // unique constraints and unique indexes
  users_username_key: { kind: 'unique', resource: 'user', field: 'username' },
  users_email_lower_key: { kind: 'unique', resource: 'user', field: 'email' },
  users_actor_id_key: { kind: 'unique', resource: 'user', field: 'actorId' },
  actors_user_id_key: { kind: 'unique', resource: 'actor', field: 'userId' },
  actors_role_lower_email_key: { kind: 'unique', resource: 'actor', field: 'email' },
  categories_scope_lower_name_key: { kind: 'unique', resource: 'category', field: 'name' },
  complaint_types_lower_name_key: { kind: 'unique', resource: 'complaint type', field: 'name' },
  complaints_transport_id_key: { kind: 'unique', resource: 'complaint', field: 'transportId' },
  countries_code_key: { kind: 'unique', resource: 'country', field: 'code' },
  states_country_code_key: { kind: 'unique', resource: 'state', field: 'code' },
  organizations_code_key: { kind: 'unique', resource: 'organization', field: 'code' },
  roles_code_key: { kind: 'unique', resource: 'role', field: 'code' },
  tags_lower_name_key: { kind: 'unique', resource: 'tag', field: 'name' },
  transports_loading_number_key: { kind: 'unique', resource: 'transport', field: 'loadingNumber' },
  vehicle_types_lower_name_key: { kind: 'unique', resource: 'vehicle type', field: 'name' },
  forum_reports_message_reporter_key: { kind: 'unique', resource: 'report', field: 'messageId' },
  tutorial_chapters_tutorial_position_key: { kind: 'unique', resource: 'chapter', field: 'position' },
  tutorial_progress_certificate_code_key: { kind: 'unique', resource: 'certificate', field: 'code' },
  announcement_likes_pkey: { kind: 'unique', resource: 'like', field: 'announcementId' },
  forum_votes_pkey: { kind: 'unique', resource: 'vote', field: 'messageId' },
  proofs_of_delivery_transport_id_key: { kind: 'unique', resource: 'proof of delivery', field: 'transportId' },
  // foreign keys
  actors_organization_id_fkey: { kind: 'foreign key' },
  announcement_likes_announcement_id_fkey: { kind: 'foreign key' },
  complaints_transport_id_fkey: { kind: 'foreign key' },
  transports_customer_id_fkey: { kind: 'foreign key' },
  transports_vehicle_type_id_fkey: { kind: 'foreign key' },
  users_country_id_fkey: { kind: 'foreign key' },
  users_organization_id_fkey: { kind: 'foreign key' },
  users_role_id_fkey: { kind: 'foreign key' },
} as const satisfies Record<string, { kind: 'unique'; resource: string; field: string } | { kind: 'foreign key' }>;

type Table = typeof CONSTRAINTS;
export type ConstraintName = keyof Table;
/** The name of a unique constraint or unique index (a primary key included). */
export type UniqueName = { [K in ConstraintName]: Table[K]['kind'] extends 'unique' ? K : never }[ConstraintName];
export type ForeignKeyName = { [K in ConstraintName]: Table[K]['kind'] extends 'foreign key' ? K : never }[ConstraintName];

/** How the contract names what a unique constraint keeps unique, or undefined for a name outside the table. */
export function uniqueRule(name: string): { resource: string; field: string } | undefined {
  const entry = (CONSTRAINTS as Record<string, { kind: string; resource?: string; field?: string }>)[name];
  return entry?.kind === 'unique' ? { resource: entry.resource!, field: entry.field! } : undefined;
}
