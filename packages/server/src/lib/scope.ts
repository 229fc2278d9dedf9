import { sql, type Expression, type SqlBool } from 'kysely';
import type { AuthContext } from './identity.js';
import type { PerOwner, Runs } from './paging.js';

/** Access levels that see every record. */
const GLOBAL_VIEW = new Set(['supervisor', 'admin', 'super_admin']);

export const hasGlobalView = (auth: AuthContext) => GLOBAL_VIEW.has(auth.accessLevel);

/**
 * The ownership rule, as a SQL condition on a column holding a user id (the record's creator):
 * an agent sees their own records, a team manager those of every user of their organization and
 * its descendants, supervisors and administrators everything.
 *
 *   db.selectFrom('transports as t').where(ownedBy(auth, 't.created_by'))
 */
export function ownedBy(auth: AuthContext, userIdColumn: string): Expression<SqlBool> {
  return ownedByScope(ownership(auth), userIdColumn);
}

/** The ownership rule of a caller, in values a query shape can bind (lib/query-shape.ts): `scope` decides the text. */
export interface Ownership {
  scope: 'all' | 'team' | 'own';
  ownerId: number;
  teamId: number | undefined;
}

export function ownership(auth: AuthContext): Ownership {
  if (hasGlobalView(auth)) return { scope: 'all', ownerId: auth.userId, teamId: undefined };
  if (auth.accessLevel === 'team_manager' && auth.organizationId !== null) {
    return { scope: 'team', ownerId: auth.userId, teamId: auth.organizationId };
  }
  return { scope: 'own', ownerId: auth.userId, teamId: undefined };
}

/** `ownedBy` from an `Ownership` (its values may be a query shape's placeholders). */
export function ownedByScope(o: Ownership, userIdColumn: string): Expression<SqlBool> {
  if (o.scope === 'all') return sql<SqlBool>`true`;
  if (o.scope === 'team') {
    // `= any(array(…))`: the team is resolved once (an init plan), and the planner uses the column's index.
    return sql<SqlBool>`${sql.ref(userIdColumn)} = any(${teamMembers(o.teamId as number)})`;
  }
  return sql<SqlBool>`${sql.ref(userIdColumn)} = ${o.ownerId}`;
}

/** The scope of a record the caller owns (see `ownedBy`) or that is assigned to them. */
export function ownedOrAssigned(auth: AuthContext, userIdColumn: string, assigneeColumn: string): Expression<SqlBool> {
  return sql<SqlBool>`(${ownedBy(auth, userIdColumn)} or ${sql.ref(assigneeColumn)} = ${auth.userId})`;
}

/** `ownedOrAssigned` from an `Ownership` (its values may be a query shape's placeholders). */
export function ownedOrAssignedScope(o: Ownership, userIdColumn: string, assigneeColumn: string): Expression<SqlBool> {
  return sql<SqlBool>`(${ownedByScope(o, userIdColumn)} or ${sql.ref(assigneeColumn)} = ${o.ownerId})`;
}

/**
 * `ownedOrAssignedScope` of one owner as paging's runs: the records they own, then those assigned
 * to them that they do not own (the owner column is never null). Each run is an index range in
 * the list's order, where the OR of two columns is none. Undefined for other scopes.
 */
export function ownedOrAssignedRuns(o: Ownership, userIdColumn: string, assigneeColumn: string): Runs | undefined {
  if (o.scope !== 'own') return undefined;
  return {
    conditions: (p) => {
      const me = p.ownerId ?? o.ownerId;
      return [
        sql<SqlBool>`${sql.ref(userIdColumn)} = ${me}`,
        sql<SqlBool>`${sql.ref(assigneeColumn)} = ${me} and ${sql.ref(userIdColumn)} <> ${me}`,
      ];
    },
    unscoped: { scope: 'all', orAssigned: false },
  };
}

/** A scope that limits nothing. */
export const everyRecord: Expression<SqlBool> = sql<SqlBool>`true`;

/** Ids of the organization and all its descendants. */
export function organizationSubtree(organizationId: number) {
  return sql<number>`with recursive subtree(id) as (
      select ${organizationId}::int
      union
      select o.id from organizations o join subtree s on o.parent_id = s.id
    ) select id from subtree`;
}

/** Ids of the users of an organization subtree. */
export function teamUserIds(organizationId: number) {
  return sql<number>`select u.id from users u where u.organization_id in (${organizationSubtree(organizationId)})`;
}

/** Ids of the users of an organization subtree, as one array (`= any(…)`, `unnest(…)`). */
export function teamMembers(organizationId: number) {
  return sql<number[]>`array(${teamUserIds(organizationId)})`;
}

/**
 * The owners a caller's list may be read by, one owner at a time (paging's `PerOwner`): the members
 * of a team manager's team. Undefined for other scopes (one owner, or every record).
 */
export function teamOwners(o: Ownership, ownerColumn: string): PerOwner | undefined {
  if (o.scope !== 'team') return undefined;
  return { column: ownerColumn, owners: (p) => teamMembers((p.teamId ?? o.teamId) as number), unscoped: { scope: 'all' } };
}

/**
 * The organization-subtree condition for records that carry an organization id (users,
 * organizations, agents): team managers are limited to their subtree, global roles are not.
 */
export function withinTeam(auth: AuthContext, organizationIdColumn: string): Expression<SqlBool> {
  return withinTeamScope(teamOf(auth), organizationIdColumn);
}

/** The organization-subtree rule of a caller, in values a query shape can bind: `scope` decides the text. */
export interface TeamScope {
  scope: 'all' | 'none' | 'team';
  teamId: number | undefined;
}

/** Every organization: the scope of lists that are not limited to a team. */
export const EVERY_TEAM: TeamScope = { scope: 'all', teamId: undefined };

export function teamOf(auth: AuthContext): TeamScope {
  if (hasGlobalView(auth)) return EVERY_TEAM;
  if (auth.organizationId === null) return { scope: 'none', teamId: undefined };
  return { scope: 'team', teamId: auth.organizationId };
}

/**
 * A short text naming the records `auth` sees: equal for two callers exactly when their ownership
 * rule (`ownership`) and team rule (`teamOf`) are equal. The part of a cached answer's key that
 * stands for the caller, without compiling their conditions on every request.
 */
export function scopeKey(auth: AuthContext): string {
  const o = ownership(auth);
  const t = teamOf(auth);
  return `${o.scope}:${o.scope === 'all' ? '' : o.scope === 'team' ? o.teamId : o.ownerId}/${t.scope}:${t.teamId ?? ''}`;
}

/** `withinTeam` from a `TeamScope` (its values may be a query shape's placeholders). */
export function withinTeamScope(t: TeamScope, organizationIdColumn: string): Expression<SqlBool> {
  if (t.scope === 'all') return sql<SqlBool>`true`;
  if (t.scope === 'none') return sql<SqlBool>`false`;
  return sql<SqlBool>`${sql.ref(organizationIdColumn)} in (${organizationSubtree(t.teamId as number)})`;
}
