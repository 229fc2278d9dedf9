import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/http/handlers.js';
import { DEMO_PASSWORD, type DemoUser, useTestApp } from '../support/app.js';
import { operations, type OperationInfo } from '../support/contract.js';
import { expectUnauthenticated } from '../support/expect.js';

/**
 * The permission matrix, generated from the contract: every operation is called with no token and
 * with the token of each demo role. A role the operation's security requirement does not list gets
 * 403 FORBIDDEN; a listed role passes the gate (whatever the operation then answers: the requests
 * use an id that does not exist and a body the contract refuses, so nothing is changed); no token
 * gets 401 on every protected operation.
 */
const roleOf: Record<DemoUser, string> = {
  agent: 'agent',
  agent2: 'agent',
  manager: 'team_manager',
  supervisor: 'supervisor',
  admin: 'admin',
};
const users: DemoUser[] = ['agent', 'manager', 'supervisor', 'admin'];

const t = useTestApp();

const allowedRoles = (info: OperationInfo) => (info.operation.security?.[0]?.bearerAuth ?? null) as string[] | null;

/** A request that passes the role gate but changes nothing: unknown ids, a refused body. */
function harmlessRequest(info: OperationInfo) {
  const params = Object.fromEntries(
    [...info.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, name === 'code' ? 'ZZZZZZZZZZZZ' : 999999]),
  );
  const body = (info.operation as { requestBody?: unknown }).requestBody ? { matrixProbe: true } : undefined;
  return { params, body };
}

async function freshToken(user: DemoUser): Promise<string> {
  const res = await t.call('login', { body: { username: user, password: DEMO_PASSWORD } });
  return res.body.result.access_token;
}

const protectedOps = operations.filter((o) => allowedRoles(o) !== null);
const publicOps = operations.filter((o) => allowedRoles(o) === null);

describe('permission matrix (from the contract)', () => {
  it.each(protectedOps.map((o) => [o.operationId, o] as const))('%s refuses a call without a token with 401', async (_id, info) => {
    expectUnauthenticated(await t.call(info.operationId, harmlessRequest(info)));
  });

  it.each(publicOps.map((o) => [o.operationId, o] as const))('%s is public: no token is asked for', async (_id, info) => {
    const res = await t.call(info.operationId, harmlessRequest(info));
    expect(res.status, JSON.stringify(res.body)).not.toBe(401);
    expect(res.status).not.toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
    // It answered the request itself: a success, or a refusal of the probe's own parameters or body.
    if (res.status >= 400) expect(res.body.success).toBe(false);
    else expect(res.status).toBeLessThan(300);
  });

  const cases = protectedOps.flatMap((info) => users.map((user) => [info.operationId, user, info] as const));
  it.each(cases)('%s as %s: allowed roles pass the gate, others get 403 FORBIDDEN', async (_id, user, info) => {
    const roles = allowedRoles(info)!;
    // logout ends the session of the token it is given: use a token of its own.
    const token = info.operationId === ('logout' as OperationId) ? await freshToken(user) : await t.token(user);
    const res = await t.call(info.operationId, { ...harmlessRequest(info), token });
    if (roles.includes(roleOf[user])) {
      expect(res.status, JSON.stringify(res.body)).not.toBe(401);
      expect(res.body?.errors?.code, JSON.stringify(res.body)).not.toBe('FORBIDDEN');
    } else {
      expect(res.status).toBe(403);
      expect(res.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: roles });
    }
  });
});
