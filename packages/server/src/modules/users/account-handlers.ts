import { hashPassword } from '../../lib/passwords.js';
import { AppError, ListError, notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/db-errors.js';
import { pageMeta } from '../../lib/paging.js';
import { withinTeam } from '../../lib/scope.js';
import { caller, type AuthContext } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { revokeSessions } from '../auth/repository.js';
import { insertAccount, listAccounts, updateAccount } from './account-repository.js';
import {
  auditedFields,
  accountCountry,
  actorEmailTaken,
  actorFamily,
  activeCountryExists,
  findActiveRole,
  findUserRow,
  loadUser,
  organizationExists,
  selectUsers,
  toUser,
  userEmailTaken,
  usernameTaken,
} from './repository.js';
import {
  assertAssignable,
  assertCanActOn,
  assertKeepsAnAdministrator,
  assertMayChangeRole,
  assertPasswordAllowed,
  isAdministrator,
} from './rules.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

type Db = Parameters<typeof loadUser>[0];

const userExists = (field: 'username' | 'email', value: string) =>
  new AppError(
    'ALREADY_EXISTS',
    { resource: 'user', field, value },
    field === 'email' ? 'A user with this e-mail already exists' : 'A user with this username already exists',
  );

const actorEmailExists = (email: string) =>
  new AppError('ALREADY_EXISTS', { resource: 'actor', field: 'email', value: email }, 'An actor with this e-mail already exists');

/** The role of a payload: existing and active (404), not above the caller (403). */
async function assignableRole(db: Db, auth: AuthContext, roleId: number) {
  const role = await findActiveRole(db, roleId);
  if (!role) throw notFound.resource('role', roleId);
  assertAssignable(auth, roleId, role.access_level);
  return role;
}

async function checkOrganization(db: Db, id: number) {
  if (!(await organizationExists(db, id))) throw notFound.resource('organization', id);
}

async function checkCountry(db: Db, id: number) {
  if (!(await activeCountryExists(db, id))) throw notFound.resource('country', id);
}

/** A reference deleted between the checks and the write: the 404 of the record that went away. */
function vanishedReference(error: unknown, ids: { roleId?: number; organizationId?: number | null; countryId?: number }) {
  for (const [constraint, resource, id] of [
    ['users_role_id_fkey', 'role', ids.roleId],
    ['users_organization_id_fkey', 'organization', ids.organizationId],
    ['actors_organization_id_fkey', 'organization', ids.organizationId],
    ['users_country_id_fkey', 'country', ids.countryId],
  ] as const) {
    if (isForeignKeyViolation(error, constraint) && typeof id === 'number') return notFound.resource(resource, id);
  }
  return undefined;
}

export const accountHandlers: ModuleHandlers<'listUsers' | 'getUserById' | 'createUser' | 'updateUser'> = {
  async listUsers(req) {
    const auth = caller(req);
    const { page = 1, limit = 10, ...filters } = req.query;
    const { rows, total } = await listAccounts(req.server.db, auth, Object.assign({}, filters, { page, limit }));
    return { message: 'Users retrieved', result: { data: rows.map(toUser), meta: pageMeta(total, page, limit) } };
  },

  async getUserById(req) {
    return { message: 'User retrieved', result: await accountRepresentations.getUserById.read(req) };
  },

  async createUser(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { username, email, firstName, lastName, password, confirmPassword, roleId, organizationId } = req.body;
    if (confirmPassword !== password) throw new ListError(400, 'Validation failed', ['body/confirmPassword must be equal to password']);
    await assertPasswordAllowed('password', password, { username, email });
    const role = await assignableRole(db, auth, roleId);
    if (organizationId !== undefined) await checkOrganization(db, organizationId);
    if (req.body.countryId !== undefined) await checkCountry(db, req.body.countryId);
    const countryId = req.body.countryId ?? auth.countryId ?? (await accountCountry(db, auth.userId));
    // The unique constraint covers the exact username only; other cases are refused here.
    if (await usernameTaken(db, username)) throw userExists('username', username);
    // Checked before the actors: an account's own actor carries the same e-mail.
    if (await userEmailTaken(db, email, null)) throw userExists('email', email);
    const family = actorFamily(role.access_level);
    if (await actorEmailTaken(db, family, email, null)) throw actorEmailExists(email);
    const passwordHash = await hashPassword(password); // argon2id (lib/passwords.ts)

    let id: number;
    try {
      id = await db.transaction().execute(async (trx) => {
        const created = await insertAccount(
          trx,
          { actor_role: family, first_name: firstName, last_name: lastName, email, organization_id: organizationId ?? null },
          {
            username,
            email,
            password_hash: passwordHash,
            role_id: roleId,
            country_id: countryId,
            organization_id: organizationId ?? null,
          },
        );
        await audit(trx, req, {
          action: 'user.created',
          resource: { type: 'user', id: created },
          after: { username, email, firstName, lastName, roleId, organizationId: organizationId ?? null, countryId, isActive: true },
        });
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_username_key')) throw userExists('username', username);
      if (isUniqueViolation(error, 'users_email_lower_key')) throw userExists('email', email);
      throw vanishedReference(error, { roleId, organizationId, countryId }) ?? error;
    }
    return { message: 'User created', result: await loadUser(db, id) };
  },

  async updateUser(req) {
    const auth = caller(req);
    const { db, sessions } = req.server;
    const { id } = req.params;
    const { email, firstName, lastName, roleId, organizationId, countryId } = req.body;
    const target = await findUserRow(db, id);
    if (!target) throw notFound.resource('user', id);
    assertCanActOn(auth, target.access_level);
    if (roleId !== undefined && roleId !== target.role_id) await assertMayChangeRole(db, auth, id);
    const role = roleId === undefined ? undefined : await assignableRole(db, auth, roleId);
    if (organizationId !== undefined && organizationId !== null) await checkOrganization(db, organizationId);
    if (countryId !== undefined) await checkCountry(db, countryId);
    if (target.actor_id === null && (firstName !== undefined || lastName !== undefined)) {
      throw new ListError(400, 'Validation failed', [
        ...(firstName !== undefined ? ['body/firstName cannot be set on an account without an actor'] : []),
        ...(lastName !== undefined ? ['body/lastName cannot be set on an account without an actor'] : []),
      ]);
    }
    const family = actorFamily(role?.access_level ?? target.access_level);
    const familyChanges = target.actor_role !== null && family !== target.actor_role;
    if (email !== undefined && (await userEmailTaken(db, email, id))) throw userExists('email', email);
    const newEmail = email ?? target.email;
    if (
      target.actor_id !== null &&
      (email !== undefined || familyChanges) &&
      (await actorEmailTaken(db, family, newEmail, target.actor_id))
    ) {
      throw actorEmailExists(newEmail);
    }
    // The account's tokens carry its access level and organization: a change of either ends its sessions.
    const roleChanges = roleId !== undefined && roleId !== target.role_id;
    const organizationChanges = organizationId !== undefined && organizationId !== target.organization_id;

    let revoked: number[];
    try {
      revoked = await db.transaction().execute(async (trx) => {
        if (role && !isAdministrator(role.access_level)) await assertKeepsAnAdministrator(trx, target);
        await updateAccount(
          trx,
          target,
          Object.assign(
            {},
            email !== undefined && { email },
            roleId !== undefined && { role_id: roleId },
            organizationId !== undefined && { organization_id: organizationId },
            countryId !== undefined && { country_id: countryId },
          ),
          Object.assign(
            {},
            firstName !== undefined && { first_name: firstName },
            lastName !== undefined && { last_name: lastName },
            email !== undefined && { email },
            familyChanges && { actor_role: family },
            organizationId !== undefined && { organization_id: organizationId },
          ),
        );
        const ended =
          roleChanges || organizationChanges
            ? await revokeSessions(trx, { userId: id }, roleChanges ? 'role_changed' : 'organization_changed')
            : [];
        await audit(trx, req, {
          action: roleChanges ? 'user.role_changed' : 'user.updated',
          resource: { type: 'user', id },
          before: auditedFields(target),
          after: { email, firstName, lastName, roleId, organizationId, countryId },
          details: ended.length > 0 ? { revokedSessions: ended.length } : undefined,
        });
        return ended;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_lower_key')) throw userExists('email', email!);
      throw vanishedReference(error, { roleId, organizationId, countryId }) ?? error;
    }
    await sessions.forget(revoked);
    const updated = await findUserRow(db, id);
    if (!updated) throw notFound.resource('user', id);
    return { message: 'User updated', result: toUser(updated) };
  },
};

/** The account as its GET answers it (write-safety/representations.ts). */
export const accountRepresentations: ModuleRepresentations<'getUserById'> = {
  getUserById: {
    row: { table: 'users', id: (req) => req.params.id },
    async read(req) {
      const auth = caller(req);
      const row = await selectUsers(req.server.db)
        .where('u.id', '=', req.params.id)
        .where(withinTeam(auth, 'u.organization_id'))
        .executeTakeFirst();
      if (!row) throw notFound.resource('user', req.params.id);
      return toUser(row);
    },
  },
};
