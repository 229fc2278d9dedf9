import { expect } from 'vitest';
import type { ErrorCode, ErrorDetail } from '../../src/contract.js';
import type { OperationId } from '../../src/http/handlers.js';
import { errorMessages } from './app.js';
import { operationById } from './contract.js';

/**
 * Assertions on refusals, read as the contract states them: the status, `success: false`, the
 * envelope's message, and `errors` naming the code (a detail object) or the field and rule (a
 * list of messages). `t.call` has already checked the body against the operation's declared schema.
 */
interface Answer {
  status: number;
  body: { success: boolean; message: string; errors: unknown; result?: unknown };
  headers?: Record<string, unknown>;
}

const show = (res: Answer) => `${res.status} ${JSON.stringify(res.body)}`;

type DetailOf<C extends ErrorCode> = Omit<Extract<ErrorDetail, { code: C }>, 'code'>;

/** A refusal whose `errors` is the detail of `code`, with the given context fields (others may follow). */
export function expectError<C extends ErrorCode>(res: Answer, status: number, code: C, detail: Partial<DetailOf<C>> = {}): void {
  expect(res.status, show(res)).toBe(status);
  expect(res.body).toMatchObject({ success: false, result: null, errors: { code, ...detail } });
}

/** 400 Validation failed, whose messages include each one given (a string exactly, or a pattern). */
export function expectInvalid(res: Answer, ...messages: (string | RegExp)[]): void {
  expect(res.status, show(res)).toBe(400);
  expect(res.body).toMatchObject({ success: false, message: 'Validation failed', result: null });
  const list = errorMessages(res.body);
  expect(messages.length, 'name at least one expected message').toBeGreaterThan(0);
  for (const m of messages) expect(list).toContainEqual(typeof m === 'string' ? m : expect.stringMatching(m));
}

/** 401 asking for a bearer token: `errors` says why (no token by default). */
export function expectUnauthenticated(res: Answer, reason = 'Missing bearer token'): void {
  expect(res.status, show(res)).toBe(401);
  expect(res.body).toMatchObject({ success: false, result: null, errors: [reason] });
  if (res.headers) expect(res.headers['www-authenticate']).toBe('Bearer');
}

/** The roles an operation's `security` requirement admits, as the contract lists them. */
export function rolesOf(operationId: OperationId): string[] {
  const security = (operationById.get(operationId)!.operation as { security?: Record<string, string[]>[] }).security;
  const roles = security?.flatMap((requirement) => requirement.bearerAuth ?? []) ?? [];
  expect(roles.length, `${operationId} declares no roles`).toBeGreaterThan(0);
  return roles;
}

/** 403 from the role check: FORBIDDEN naming exactly the roles the contract admits for the operation. */
export function expectRoleRefused(res: Answer, operationId: OperationId): void {
  expect(res.status, show(res)).toBe(403);
  expect(res.body).toEqual({
    success: false,
    message: 'Insufficient permissions',
    result: null,
    errors: { code: 'FORBIDDEN', requiredRoles: rolesOf(operationId) },
    except: null,
  });
}

/** 403 FORBIDDEN; when given, the roles the refusal names as allowed. */
export function expectForbidden(res: Answer, requiredRoles?: string[]): void {
  expectError(res, 403, 'FORBIDDEN', requiredRoles ? { requiredRoles } : {});
}

/** 404 RESOURCE_NOT_FOUND naming the resource and the id asked for. */
export function expectNotFound(res: Answer, resource: string, id: number): void {
  expectError(res, 404, 'RESOURCE_NOT_FOUND', { resource, id });
}
