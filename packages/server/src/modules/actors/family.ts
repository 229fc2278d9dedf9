import type { components } from '@transport-ops/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { ActorRole, ActorsTable, ActorUpdate, Database } from '../../db/schema.js';
import { AppError, ListError } from '../../lib/errors.js';
import type { Req } from '../../http/handlers.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta, type PageMeta } from '../../lib/paging.js';
import { type ColumnsOf, sentColumns } from '../../lib/patch.js';
import { EVERY_TEAM, everyRecord, teamOf, withinTeam } from '../../lib/scope.js';
import { type AccessLevel, type AuthContext, caller } from '../../lib/identity.js';
import { audit, type AuditSource } from '../../lib/audit.js';
import { revokeSessions } from '../auth/repository.js';
import * as repo from './repository.js';

type Schemas = components['schemas'];
/** A list whose total says whether it is exact (the contract's EstimatedPageMeta). */
type EstimatedPageMeta = PageMeta & { total_is_exact: boolean };
type BulkResult = Schemas['BulkActionResult'];

/** What differs between the administrator, agent and customer families. */
export interface Family<R> {
  role: ActorRole;
  /** Singular label used in messages: "Admin", "Agent", "Customer". */
  label: string;
  /** The family's people in sentences: "administrator", "agent", "customer". */
  noun: string;
  /** Levels of the accounts an actor of this family may be linked to (none for customers). */
  accountLevels: AccessLevel[];
  /** Team managers see only the family's actors of their organization subtree. */
  teamScoped: boolean;
  /** Customers need an e-mail or a phone. */
  needsContact: boolean;
  inUseMessage: string;
  toResult(row: repo.ActorRow): R;
}

// The widest request shapes of the three families: each family's own request types fit in them.
type ListRequest = FastifyRequest<{ Querystring: Req<'listAdmins'>['query'] }>;
type IdRequest = FastifyRequest<{ Params: { id: number } }>;
type CreateRequest = FastifyRequest<{ Body: Schemas['ActorCreate'] }>;
type UpdateRequest = FastifyRequest<{ Params: { id: number }; Body: Schemas['ActorUpdate'] }>;
type BulkRequest = FastifyRequest<{ Body: Schemas['ActorBulkAction'] }>;

const EMAIL_KEY = 'actors_role_lower_email_key';
const fields = (value: unknown) => value as Record<string, unknown>;
const UPDATE_COLUMNS = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  phone: 'phone',
  address: 'address',
  organizationId: 'organization_id',
} as const satisfies ColumnsOf<Schemas['ActorUpdate'], ActorsTable>;
const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'An' : 'A');
const missingContact = () =>
  new AppError(
    'MISSING_CUSTOMER_INFO',
    { message: 'Provide at least an e-mail address or a phone number' },
    'Customer needs an e-mail or a phone number',
  );

/** The eight operations of one actor family, written once. */
export function familyHandlers<R>(family: Family<R>) {
  const { role, label } = family;
  const notFound = (id: number) => new AppError('RESOURCE_NOT_FOUND', { resource: 'actor', id }, `${label} not found`);
  const readScope = (auth: AuthContext) => (family.teamScoped ? withinTeam(auth, 'a.organization_id') : everyRecord);
  const levels = family.accountLevels;

  async function load(db: Kysely<Database>, id: number): Promise<R> {
    const row = await repo.findActor(db, role, id);
    if (!row) throw notFound(id);
    return family.toResult(row);
  }

  /** An organization an actor may be put in: existing (404) and, when newly chosen, active (400). */
  async function checkOrganization(db: Kysely<Database>, id: number): Promise<void> {
    const org = await repo.findOrganization(db, id);
    if (!org) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'organization', id }, 'Organization not found');
    if (!org.is_active) throw new ListError(400, 'Validation failed', ['body/organizationId must reference an active organization']);
  }

  async function checkAccount(db: Kysely<Database>, userId: number): Promise<void> {
    const account = await repo.findAccount(db, userId);
    if (!account) throw new AppError('RESOURCE_NOT_FOUND', { resource: 'user', id: userId }, 'User not found');
    if (!levels.includes(account.access_level)) {
      const names = levels.length === 2 ? levels.join(' or ') : `${levels.slice(0, -1).join(', ')} or ${levels.at(-1)}`;
      throw new ListError(400, 'Validation failed', [`body/userId must reference an account of level ${names}`]);
    }
    if (account.actor_id !== null || (await repo.accountHasActor(db, userId))) throw accountHasActor(userId);
  }

  const accountHasActor = (userId: number) =>
    new AppError(
      'ALREADY_EXISTS',
      { resource: 'actor', field: 'userId', value: String(userId) },
      'This user account is already linked to an actor',
    );

  const emailExists = (email: string, exceptId?: number) => {
    const message =
      exceptId === undefined
        ? `${article(family.noun)} ${family.noun} with this e-mail already exists`
        : `Another ${family.noun} uses this e-mail`;
    return new AppError('ALREADY_EXISTS', { resource: 'actor', field: 'email', value: email }, message);
  };

  /** The index on (actor_role, lower(email)) decides under concurrency; the check gives the usual case its answer early. */
  async function checkEmail(db: Kysely<Database>, email: string, exceptId?: number): Promise<void> {
    if (await repo.emailTaken(db, role, email, exceptId)) throw emailExists(email, exceptId);
  }

  /** Activates or deactivates the actor and its account; deactivation ends the account's sessions. */
  async function changeState(server: FastifyInstance, auth: AuthContext, id: number, active: boolean, req: AuditSource): Promise<R> {
    const { result, revoked } = await server.db.transaction().execute(async (trx) => {
      const row = await repo.lockActor(trx, role, id);
      if (!row) throw notFound(id);
      if (!active && auth.actorId === id)
        throw new AppError('SELF_ACTION_FORBIDDEN', { action: 'deactivate' }, 'You cannot deactivate yourself');
      const before = fields(await load(trx, id)).isActive;
      await repo.setActorState(trx, id, row.user_id, active);
      await audit(trx, req, {
        action: active ? 'actor.activated' : 'actor.deactivated',
        resource: { type: 'actor', id },
        before: { isActive: before },
        after: { isActive: active },
        details: { actorRole: role },
      });
      const revoked = !active && row.user_id !== null ? await revokeSessions(trx, { userId: row.user_id }, 'account deactivated') : [];
      return { result: await load(trx, id), revoked };
    });
    await server.sessions.forget(revoked);
    return result;
  }

  async function remove(db: Kysely<Database>, id: number, req: AuditSource): Promise<void> {
    await db.transaction().execute(async (trx) => {
      // The row lock makes concurrent inserts that refer to the actor wait for this decision.
      if (!(await repo.lockActor(trx, role, id))) throw notFound(id);
      const usageCount = await repo.actorUsage(trx, id);
      if (usageCount > 0) throw new AppError('RESOURCE_IN_USE', { resource: 'actor', id, usageCount }, family.inUseMessage);
      const before = fields(await load(trx, id));
      await repo.deleteActorRow(trx, id);
      await audit(trx, req, { action: 'actor.deleted', resource: { type: 'actor', id }, before, details: { actorRole: role } });
    });
  }

  const bulkMessages: Record<string, (id: number) => string> = {
    RESOURCE_NOT_FOUND: (id) => `${label} ${id} not found`,
    RESOURCE_IN_USE: (id) => `${label} ${id} is still referenced`,
    SELF_ACTION_FORBIDDEN: (id) => `${label} ${id} is your own actor`,
  };

  /** The actor as its GET answers it, its row in `actors` (write-safety/representations.ts). */
  const representation = {
    row: { table: 'actors' as const, id: (req: IdRequest) => req.params.id },
    async read(req: IdRequest): Promise<R> {
      const row = await repo.findActor(req.server.db, role, req.params.id, readScope(caller(req)));
      if (!row) throw notFound(req.params.id);
      return family.toResult(row);
    },
  };

  return {
    async list(req: ListRequest): Promise<{ message: string; result: { data: R[]; meta: EstimatedPageMeta } }> {
      const auth = caller(req);
      const q = req.query;
      const filters: repo.ActorFilters = {
        page: q.page ?? 1,
        limit: q.limit ?? 10,
        search: q.search,
        isActive: q.isActive,
        organizationId: q.organizationId,
        sortBy: q.sortBy ?? 'createdAt',
        sortOrder: q.sortOrder ?? 'DESC',
      };
      const { rows, total, exact } = await repo.listActors(req.server.db, role, family.teamScoped ? teamOf(auth) : EVERY_TEAM, filters);
      return {
        message: `${label}s retrieved`,
        result: {
          data: rows.map(family.toResult),
          meta: Object.assign({}, pageMeta(total, filters.page, filters.limit), { total_is_exact: exact }),
        },
      };
    },

    /** The actor as its GET answers it (write-safety/representations.ts). */
    representation,

    async get(req: IdRequest): Promise<{ message: string; result: R }> {
      return { message: `${label} retrieved`, result: await representation.read(req) };
    },

    async create(req: CreateRequest): Promise<{ message: string; result: R }> {
      caller(req);
      const body = req.body;
      if (family.needsContact && body.email === undefined && body.phone === undefined) throw missingContact();
      const result = await req.server.db.transaction().execute(async (trx) => {
        if (body.organizationId !== undefined) await checkOrganization(trx, body.organizationId);
        if (body.userId !== undefined) await checkAccount(trx, body.userId);
        if (body.email !== undefined) await checkEmail(trx, body.email);
        let id: number;
        try {
          id = await repo.insertActor(trx, role, {
            first_name: body.firstName,
            last_name: body.lastName,
            email: body.email ?? null,
            phone: body.phone ?? null,
            address: body.address ?? null,
            organization_id: body.organizationId ?? null,
            user_id: body.userId ?? null,
          });
        } catch (error) {
          if (
            body.userId !== undefined &&
            (isUniqueViolation(error, 'actors_user_id_key') || isUniqueViolation(error, 'users_actor_id_key'))
          ) {
            throw accountHasActor(body.userId);
          }
          if (body.email !== undefined && isUniqueViolation(error, EMAIL_KEY)) throw emailExists(body.email);
          throw error;
        }
        await audit(trx, req, { action: 'actor.created', resource: { type: 'actor', id }, after: body, details: { actorRole: role } });
        return load(trx, id);
      });
      return { message: `${label} created`, result };
    },

    async update(req: UpdateRequest): Promise<{ message: string; result: R }> {
      caller(req);
      const id = req.params.id;
      const patch = req.body;
      const result = await req.server.db.transaction().execute(async (trx) => {
        const row = await repo.lockActor(trx, role, id);
        if (!row) throw notFound(id);
        if (patch.organizationId != null && patch.organizationId !== row.organization_id)
          await checkOrganization(trx, patch.organizationId);
        if (family.needsContact) {
          const email = patch.email === undefined ? row.email : patch.email;
          const phone = patch.phone === undefined ? row.phone : patch.phone;
          if (email === null && phone === null) throw missingContact();
        }
        if (patch.email != null) await checkEmail(trx, patch.email, id);
        const values: ActorUpdate = sentColumns(patch, UPDATE_COLUMNS);
        const before = fields(await load(trx, id));
        await repo.updateActor(trx, id, values).catch((error: unknown) => {
          throw patch.email != null && isUniqueViolation(error, EMAIL_KEY) ? emailExists(patch.email, id) : error;
        });
        await audit(trx, req, {
          action: 'actor.updated',
          resource: { type: 'actor', id },
          before,
          after: patch,
          details: { actorRole: role },
        });
        return load(trx, id);
      });
      return { message: `${label} updated`, result };
    },

    async remove(req: IdRequest): Promise<{ message: string; result: null }> {
      caller(req);
      await remove(req.server.db, req.params.id, req);
      return { message: `${label} deleted`, result: null };
    },

    async activate(req: IdRequest): Promise<{ message: string; result: R }> {
      return { message: `${label} activated`, result: await changeState(req.server, caller(req), req.params.id, true, req) };
    },

    async deactivate(req: IdRequest): Promise<{ message: string; result: R }> {
      return { message: `${label} deactivated`, result: await changeState(req.server, caller(req), req.params.id, false, req) };
    },

    async bulk(req: BulkRequest): Promise<{ message: string; result: BulkResult }> {
      const auth = caller(req);
      const { action, ids } = req.body;
      const result: BulkResult = { action, processed: [], failed: [] };
      // Each id in its own transaction: a refusal leaves the others applied.
      for (const id of ids) {
        try {
          if (action === 'ACTIVATE') await changeState(req.server, auth, id, true, req);
          else if (action === 'DEACTIVATE') await changeState(req.server, auth, id, false, req);
          else {
            if (auth.actorId === id) throw new AppError('SELF_ACTION_FORBIDDEN', { action: 'delete' }, 'You cannot delete yourself');
            await remove(req.server.db, id, req);
          }
          result.processed.push(id);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const code = error.detail.code;
          result.failed.push({ id, code, message: bulkMessages[code]?.(id) ?? error.message });
        }
      }
      return { message: 'Bulk action completed', result };
    },
  };
}
