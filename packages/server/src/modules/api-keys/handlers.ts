import { randomBytes } from 'node:crypto';
import type { components } from '@transport-ops/contract';
import { notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { fetchPage, pageMeta } from '../../lib/paging.js';
import { hashPassword } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { audit } from '../../lib/audit.js';
import { accountCountry, findActiveRole, organizationExists } from '../users/repository.js';
import { assertAssignable } from '../users/rules.js';
import { type ApiKeyRow, findKey, insertKey, listKeys, revokeKey } from './repository.js';

export type ApiKeyOps = 'listApiKeys' | 'createApiKey' | 'revokeApiKey';

function toApiKey(row: ApiKeyRow): components['schemas']['ApiKey'] {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    role: { id: row.role_id, code: row.role_code, name: row.role_name, accessLevel: row.access_level },
    accessLevelCap: row.access_level_cap,
    userId: row.user_id,
    organizationId: row.organization_id,
    createdAt: iso(row.created_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

export const apiKeyHandlers: ModuleHandlers<ApiKeyOps> = {
  async listApiKeys(req) {
    const { page = 1, limit = 10 } = req.query;
    const { rows, total } = await fetchPage(listKeys(req.server.db), page, limit);
    return { message: 'API keys retrieved', result: { data: rows.map(toApiKey), meta: pageMeta(total, page, limit) } };
  },

  async createApiKey(req) {
    const auth = caller(req);
    const { db } = req.server;
    const { name, roleId, organizationId = null } = req.body;
    const role = await findActiveRole(db, roleId);
    if (!role) throw notFound.resource('role', roleId);
    assertAssignable(auth, roleId, role.access_level);
    if (organizationId !== null && !(await organizationExists(db, organizationId))) throw notFound.resource('organization', organizationId);
    const countryId = auth.countryId ?? (await accountCountry(db, auth.userId));
    // The service account never logs in: its password is random and thrown away.
    const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
    const { id, key } = await db.transaction().execute(async (trx) => {
      const created = await insertKey(trx, {
        name: name.trim(),
        roleId,
        accessLevel: role.access_level,
        organizationId,
        countryId,
        createdBy: auth.userId,
        passwordHash,
      });
      await audit(trx, req, {
        action: 'api_key.created',
        resource: { type: 'api_key', id: created.id },
        after: { name: name.trim(), roleId, organizationId, prefix: created.key.slice(0, 12) },
      });
      return created;
    });
    const row = await findKey(db, id);
    return { status: 201, message: 'API key created', result: Object.assign(toApiKey(row!), { key }) };
  },

  async revokeApiKey(req) {
    const { id } = req.params;
    const revoked = await req.server.db.transaction().execute(async (trx) => {
      if (!(await revokeKey(trx, id))) return false;
      await audit(trx, req, { action: 'api_key.revoked', resource: { type: 'api_key', id } });
      return true;
    });
    if (!revoked) throw notFound.resource('apiKey', id);
    return { message: 'API key revoked', result: null };
  },
};
