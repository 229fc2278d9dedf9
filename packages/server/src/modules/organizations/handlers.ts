import type { components } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import type { Database, OrganizationsTable, OrganizationUpdate } from '../../db/schema.js';
import { AppError, ListError } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta } from '../../lib/paging.js';
import { type ColumnsOf, sentColumns } from '../../lib/patch.js';
import { teamOf, withinTeam } from '../../lib/scope.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import * as repo from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

type Organization = components['schemas']['Organization'];
type OrganizationDetail = components['schemas']['OrganizationDetail'];

function toOrganization(row: repo.OrganizationRow): Organization {
  return {
    id: row.id,
    publicId: row.public_id,
    name: row.name,
    code: row.code,
    type: row.type,
    parentId: row.parent_id,
    parent: row.parent_id === null ? null : { id: row.parent_id, name: row.parent_name! },
    manager: row.manager_user_id === null ? null : { id: row.manager_user_id, username: row.manager_username! },
    country: row.country_id === null ? null : { id: row.country_id, name: row.country_name! },
    isActive: row.is_active,
    membersCount: Number(row.members_count),
    childrenCount: Number(row.children_count),
    path: row.ancestors.map((a) => ({ id: a.id, name: a.name })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const notFound = (id: number) => new AppError('RESOURCE_NOT_FOUND', { resource: 'organization', id }, 'Organization not found');

async function loadDetail(db: Kysely<Database>, id: number, scope?: ReturnType<typeof withinTeam>): Promise<OrganizationDetail> {
  const row = await repo.findOrganization(db, id, scope);
  if (!row) throw notFound(id);
  return Object.assign({}, toOrganization(row), { children: await repo.childrenOf(db, id) });
}

/** The parent, manager and country a body refers to: existing (404); manager and country active (400). */
async function checkReferences(
  db: Kysely<Database>,
  refs: { parentId?: number | null; managerUserId?: number | null; countryId?: number | null },
): Promise<void> {
  if (refs.parentId != null && !(await repo.referencedOrganization(db, refs.parentId))) {
    throw new AppError('RESOURCE_NOT_FOUND', { resource: 'organization', id: refs.parentId }, 'Parent organization not found');
  }
  if (refs.managerUserId != null) {
    const user = await repo.referencedUser(db, refs.managerUserId);
    if (!user) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'user', id: refs.managerUserId }, 'User not found');
    if (!user.is_active) throw new ListError(400, 'Validation failed', ['body/managerUserId must reference an active account']);
  }
  if (refs.countryId != null) {
    const country = await repo.referencedCountry(db, refs.countryId);
    if (!country) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'country', id: refs.countryId }, 'Country not found');
    if (!country.is_active) throw new ListError(400, 'Validation failed', ['body/countryId must reference an active country']);
  }
}

const UPDATE_COLUMNS = {
  name: 'name',
  code: 'code',
  type: 'type',
  parentId: 'parent_id',
  managerUserId: 'manager_user_id',
  countryId: 'country_id',
  isActive: 'is_active',
} as const satisfies ColumnsOf<components['schemas']['OrganizationUpdate'], OrganizationsTable>;

/** An organization's row as the audit log compares it (lib/audit.ts), named as in the request bodies. */
const auditedFields = (row: Record<(typeof UPDATE_COLUMNS)[keyof typeof UPDATE_COLUMNS], unknown>) =>
  Object.fromEntries(Object.entries(UPDATE_COLUMNS).map(([field, column]) => [field, row[column]]));

const duplicateCode = (code: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'organization', field: 'code', value: code }, 'An organization with this code already exists');

export const organizationHandlers: ModuleHandlers<
  'listOrganizations' | 'createOrganization' | 'getOrganizationById' | 'updateOrganization' | 'deleteOrganization'
> = {
  async listOrganizations(req) {
    const auth = caller(req);
    const q = req.query;
    const filters: repo.OrganizationFilters = {
      page: q.page ?? 1,
      limit: q.limit ?? 10,
      search: q.search,
      parentId: q.parentId,
      type: q.type,
      isActive: q.isActive,
    };
    const { rows, total } = await repo.listOrganizations(req.server.db, teamOf(auth), filters);
    return {
      message: 'Organizations retrieved',
      result: { data: rows.map(toOrganization), meta: pageMeta(total, filters.page, filters.limit) },
    };
  },

  async createOrganization(req) {
    caller(req);
    const body = req.body;
    const result = await req.server.db.transaction().execute(async (trx) => {
      await checkReferences(trx, body);
      let id: number;
      try {
        id = await repo.insertOrganization(trx, {
          name: body.name,
          code: body.code,
          type: body.type,
          parent_id: body.parentId ?? null,
          manager_user_id: body.managerUserId ?? null,
          country_id: body.countryId ?? null,
        });
      } catch (error) {
        if (isUniqueViolation(error, 'organizations_code_key')) throw duplicateCode(body.code);
        throw error;
      }
      const row = await repo.findOrganization(trx, id);
      await audit(trx, req, { action: 'organization.created', resource: { type: 'organization', id }, after: auditedFields(row!) });
      return toOrganization(row!);
    });
    return { message: 'Organization created', result };
  },

  async getOrganizationById(req) {
    return { message: 'Organization retrieved', result: await organizationRepresentations.getOrganizationById.read(req) };
  },

  async updateOrganization(req) {
    caller(req);
    const id = req.params.id;
    const body = req.body;
    const result = await req.server.db.transaction().execute(async (trx) => {
      const moving = body.parentId !== undefined;
      if (moving) await repo.lockTree(trx);
      const current = await repo.lockOrganization(trx, id);
      if (!current) throw notFound(id);
      await checkReferences(trx, {
        parentId: body.parentId,
        // Only a newly chosen manager or country must be active.
        managerUserId: body.managerUserId !== current.manager_user_id ? body.managerUserId : undefined,
        countryId: body.countryId !== current.country_id ? body.countryId : undefined,
      });
      if (body.parentId != null && (await repo.isInSubtree(trx, id, body.parentId))) {
        throw new AppError(
          'ORGANIZATION_CYCLE',
          { organizationId: id, parentId: body.parentId },
          'An organization cannot be moved under itself or one of its descendants',
        );
      }
      const values: OrganizationUpdate = sentColumns(body, UPDATE_COLUMNS);
      const before = await repo.findOrganization(trx, id);
      await audit(trx, req, {
        action: 'organization.updated',
        resource: { type: 'organization', id },
        before: auditedFields(before!),
        after: body,
      });
      try {
        await repo.updateOrganization(trx, id, values);
      } catch (error) {
        if (body.code !== undefined && isUniqueViolation(error, 'organizations_code_key')) throw duplicateCode(body.code);
        throw error;
      }
      return loadDetail(trx, id);
    });
    return { message: 'Organization updated', result };
  },

  async deleteOrganization(req) {
    caller(req);
    const id = req.params.id;
    await req.server.db.transaction().execute(async (trx) => {
      // The row lock makes concurrent inserts of children, members or actors wait for this decision.
      if (!(await repo.lockOrganization(trx, id))) throw notFound(id);
      const before = await repo.findOrganization(trx, id);
      await audit(trx, req, { action: 'organization.deleted', resource: { type: 'organization', id }, before: auditedFields(before!) });
      const usageCount = await repo.organizationUsage(trx, id);
      if (usageCount > 0)
        throw new AppError('RESOURCE_IN_USE', { resource: 'organization', id, usageCount }, 'Organization has children or members');
      await repo.deleteOrganizationRow(trx, id);
    });
    return { message: 'Organization deleted', result: null };
  },
};

/** The organization as its GET answers it (write-safety/representations.ts). */
export const organizationRepresentations: ModuleRepresentations<'getOrganizationById'> = {
  getOrganizationById: {
    row: { table: 'organizations', id: (req) => req.params.id },
    async read(req) {
      return loadDetail(req.server.db, req.params.id, withinTeam(caller(req), 'o.id'));
    },
  },
};
