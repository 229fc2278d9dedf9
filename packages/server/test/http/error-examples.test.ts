import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../support/app.js';
import { deref, operations, type OperationInfo, responseExamples } from '../support/contract.js';
import { superAdminToken } from '../modules/users/support.js';

/**
 * The 400 examples of the contract are what the server answers: the request each example
 * describes is sent and the answer must equal the example, envelope and all. The mock (Prism)
 * answers these examples to a request it refuses, so a QA test written against the mock keeps
 * passing against the server. Without a body, the example's message names the request (a query
 * parameter, a path value); with one, each `body/<field> <rule>` message is applied to the
 * operation's first request example (the field left out, set to a value breaking the rule).
 */

type Json = Record<string, any>;

/** The request an example of a 400 describes, from the operation's path. */
const probes: Array<{ example: RegExp; request: (info: OperationInfo) => { url: string; headers?: Record<string, string> } }> = [
  // `querystring/sort is not an accepted field`: a parameter the operation does not declare.
  { example: /^querystring\/(\w+) is not an accepted field$/, request: (info) => ({ url: `${filled(info.path)}?sort=name` }) },
  // `querystring/q is required`: a required query parameter left out.
  { example: /^querystring\/(\w+) is required$/, request: (info) => ({ url: filled(info.path) }) },
  // `params/id must be integer`.
  { example: /^params\/id must be integer$/, request: (info) => ({ url: filled(info.path, { id: 'abc' }) }) },
  // `params/code must match pattern …`.
  { example: /^params\/code must match pattern/, request: (info) => ({ url: filled(info.path, { code: 'abc' }) }) },
  { example: /^params\/id must match pattern/, request: (info) => ({ url: filled(info.path, { id: 'abc' }) }) },
  { example: /^params\/token must match pattern/, request: (info) => ({ url: filled(info.path, { token: 'abc' }) }) },
  // `headers/if-match must NOT have more than 1000 characters`.
  {
    example: /^headers\/if-match must NOT have more than (\d+) characters$/,
    request: (info) => ({ url: filled(info.path), headers: { 'if-match': `"${'a'.repeat(1000)}"` } }),
  },
  // `headers/last-event-id must match pattern …`: a resume point that is not a decimal id.
  {
    example: /^headers\/last-event-id must match pattern/,
    request: (info) => ({ url: filled(info.path), headers: { 'last-event-id': 'abc' } }),
  },
  // `The URL is malformed`: a broken percent-encoding at the end of the path.
  { example: /^The URL is malformed$/, request: (info) => ({ url: `${filled(info.path)}%E0%A4%A` }) },
];

/** The path with every parameter filled with a well-formed value (or the given one). */
function filled(path: string, values: Record<string, string> = {}): string {
  // Events have string ids (`evt_` and 24 hexadecimal characters); every other id is an integer.
  const id = path.startsWith('/admin/events/') ? 'evt_5f1c0a9e2b7d43e8a1c6f092' : '1';
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? (name === 'code' ? 'ZZZZZZZZZZZZ' : id));
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

/** The values of an operation's 400 examples. */
const examples400 = (info: OperationInfo): Json[] => Object.values(responseExamples(info.operationId, 400));

/** The JSON request body of an operation, if it takes one. */
const jsonBody = (info: OperationInfo): Json | undefined => deref((info.operation as Json).requestBody).content?.['application/json'];

const cases = operations
  .filter((info) => !(info.operation as { requestBody?: unknown }).requestBody && info.operation.responses['400'])
  .flatMap((info) => examples400(info).map((value) => [`${info.operationId}: ${value.errors.join('; ')}`, info, value] as const));

/** A value breaking the rule a message states, made from the value it replaces; undefined leaves the field out. */
const breaking: Array<{ rule: RegExp; value: (match: RegExpMatchArray, current: unknown) => unknown }> = [
  { rule: /^is required$/, value: () => undefined },
  { rule: /^is not an accepted field$/, value: () => 'x' },
  { rule: /^must be one of: /, value: () => 'UNKNOWN_VALUE' },
  { rule: /^must NOT have fewer than (\d+) characters$/, value: (m) => 'x'.repeat(Number(m[1]) - 1) },
  { rule: /^must NOT have more than (\d+) characters$/, value: (m) => 'x'.repeat(Number(m[1]) + 1) },
  { rule: /^must NOT have fewer than (\d+) items$/, value: (m, current) => (current as unknown[]).slice(0, Number(m[1]) - 1) },
  { rule: /^must NOT have fewer than 1 properties$/, value: () => ({}) },
  { rule: /^must match format "email"$/, value: () => 'not-an-address' },
  // Same length, none of the characters any pattern of the contract admits.
  { rule: /^must match pattern /, value: (_m, current) => '?'.repeat(Math.max(String(current ?? '').length, 1)) },
  // The value sent as text: strict validation does not convert it.
  { rule: /^must be (integer|number|boolean)(,null)?$/, value: (_m, current) => String(current ?? 1) },
  { rule: /^must be >= (\S+)$/, value: (m) => Number(m[1]) - 1 },
  { rule: /^must be <= (\S+)$/, value: (m) => Number(m[1]) + 1 },
  // A confirmation that differs from the value it confirms (checked by the handler).
  { rule: /^must be equal to \w+$/, value: (_m, current) => `${String(current)}-not-the-same` },
];

/**
 * Rules that depend on stored data, each held by the tests of its module: an account of another
 * level (test/modules/actors/admins.test.ts, agents.test.ts), a product of two values each within
 * its bound.
 */
const heldElsewhere = [
  /^body\/userId must reference an account of level /,
  // A computed total above its bound (test/modules/transports/amount-bounds.test.ts).
  /^body\/totalProductValue \(productQuantity × averageUnitPrice when not sent\)/,
  // Points of a position batch (nested array items) and the batch's time window: test/modules/tracking/positions.test.ts.
  /^body\/positions[./]\d+[./]/,
  // A milestone's complaint with another type (a rule of the handler): test/modules/tracking/milestones.test.ts.
  /^body\/complaint is allowed only with type INCIDENT$/,
];

/** A validation answer's messages: its list, or its map of field to rule (complaints) as `body/<field> <rule>`. */
const messages = (errors: string[] | Record<string, string>): string[] =>
  Array.isArray(errors) ? errors : Object.entries(errors).map(([field, rule]) => `body/${field} ${rule}`);

/** The request body a list of `body/<field> <rule>` messages describes, from a valid body; null if a message is of another kind. */
function bodyFor(valid: Json[], messages: string[]): Json | null {
  let body: Json = structuredClone(valid[0]!);
  for (const message of messages) {
    // Two fields that exclude each other: both sent, each with the value a request example gives it.
    const both = /^body must not contain both (\w+) and (\w+)$/.exec(message);
    if (both) {
      for (const field of both.slice(1)) body[field!] = valid.find((v) => field! in v)![field!];
      continue;
    }
    const m = /^body(?:\/(\S+))? (.+)$/.exec(message);
    const rule = m && breaking.find((b) => b.rule.test(m[2]!));
    if (!m || !rule) return null;
    const match = m[2]!.match(rule.rule)!;
    if (m[1] === undefined) {
      body = rule.value(match, body) as Json;
      continue;
    }
    const keys = m[1].split('/');
    const field = keys.pop()!;
    const parent = keys.reduce((o: Json, k) => o[k], body);
    const value = rule.value(match, parent[field]);
    if (value === undefined) delete parent[field];
    else parent[field] = value;
  }
  return body;
}

const bodyCases = operations
  .filter((info) => jsonBody(info) && info.operation.responses['400'])
  .flatMap((info) => {
    const valid = Object.values((jsonBody(info)!.examples ?? {}) as Json).map((e) => deref(e).value as Json);
    return examples400(info)
      .filter((value) => value.message === 'Validation failed' && !('code' in value.errors))
      .map((value) => [value, messages(value.errors)] as const)
      .filter(([, list]) => !list.some((e) => heldElsewhere.some((r) => r.test(e))))
      .map(([value, list]) => [`${info.operationId}: ${list.join('; ')}`, info, value, bodyFor(valid, list)] as const);
  });

const t = useTestApp();
beforeAll(async () => {
  superAdmin = await superAdminToken(t);
});

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
      headers: Object.assign({}, probe.request(info).headers, token ? { authorization: `Bearer ${token}` } : {}),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual(value);
  });
});

describe('400 examples of operations with a JSON body', () => {
  it('covers every such operation, each validation example stating body rules a request can break', () => {
    const probed = new Set(bodyCases.map(([, info]) => info.operationId));
    expect(operations.filter((info) => jsonBody(info) && !probed.has(info.operationId)).map((info) => info.operationId)).toEqual([]);
    for (const [name, , , body] of bodyCases) expect(body, name).not.toBeNull();
  });

  it.each(bodyCases)('%s', async (_name, info, value, body) => {
    const token = await tokenFor(info);
    const res = await t.app.inject({
      method: info.method as 'POST',
      url: filled(info.path),
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: body!,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual(value);
  });
});
