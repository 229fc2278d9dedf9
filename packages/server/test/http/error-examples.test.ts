import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type DemoUser, type TestApp } from '../support/app.js';
import { deref, operations, type OperationInfo } from '../support/contract.js';
import { superAdminToken } from '../modules/users/support.js';

/**
 * The 400 examples of operations without a body are what the server answers: the request each
 * example describes is sent and the answer must equal the example, envelope and all. The mock
 * (Prism) answers these examples to a request it refuses, so a QA test written against the mock
 * keeps passing against the server.
 */

type Json = Record<string, any>;

/** The request an example of a 400 describes, from the operation's path. */
const probes: Array<{ example: RegExp; request: (info: OperationInfo) => { url: string } }> = [
  // `querystring/sort is not an accepted field`: a parameter the operation does not declare.
  { example: /^querystring\/(\w+) is not an accepted field$/, request: (info) => ({ url: `${filled(info.path)}?sort=name` }) },
  // `querystring/q is required`: a required query parameter left out.
  { example: /^querystring\/(\w+) is required$/, request: (info) => ({ url: filled(info.path) }) },
  // `params/id must be integer`.
  { example: /^params\/id must be integer$/, request: (info) => ({ url: filled(info.path, { id: 'abc' }) }) },
  // `params/code must match pattern …`.
  { example: /^params\/code must match pattern/, request: (info) => ({ url: filled(info.path, { code: 'abc' }) }) },
  // `The URL is malformed`: a broken percent-encoding at the end of the path.
  { example: /^The URL is malformed$/, request: (info) => ({ url: `${filled(info.path)}%E0%A4%A` }) },
];

/** The path with every parameter filled with a well-formed value (or the given one). */
function filled(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? (name === 'code' ? 'ZZZZZZZZZZZZ' : '1'));
}

const byRole: Record<string, DemoUser> = { admin: 'admin', supervisor: 'supervisor', team_manager: 'manager', agent: 'agent' };
let superAdmin: string;

/** A token of a role the operation admits (validation comes after the role gate); none for a public operation. */
async function tokenFor(info: OperationInfo): Promise<string | null> {
  const roles = (info.operation.security?.[0]?.bearerAuth ?? null) as string[] | null;
  if (roles === null) return null;
  const demo = roles.find((r) => byRole[r]);
  return demo ? t.token(byRole[demo]!) : superAdmin;
}

const cases = operations
  .filter((info) => !(info.operation as { requestBody?: unknown }).requestBody && info.operation.responses['400'])
  .flatMap((info) => {
    const response = deref(info.operation.responses['400'] as Json);
    const examples = Object.values((response.content?.['application/json']?.examples ?? {}) as Json).map((e) => deref(e).value as Json);
    return examples.map((value) => [`${info.operationId}: ${value.errors.join('; ')}`, info, value] as const);
  });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  superAdmin = await superAdminToken(t);
});
afterAll(async () => t?.close());

describe('400 examples of operations without a body', () => {
  it('covers every such operation that declares a 400, with a probe for each example', () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const [name, , value] of cases) {
      expect(
        probes.some((p) => p.example.test(value.errors[0])),
        name,
      ).toBe(true);
    }
  });

  it.each(cases)('%s', async (_name, info, value) => {
    const probe = probes.find((p) => p.example.test(value.errors[0]))!;
    const token = await tokenFor(info);
    const res = await t.app.inject({
      method: info.method as 'GET',
      url: probe.request(info).url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual(value);
  });
});
