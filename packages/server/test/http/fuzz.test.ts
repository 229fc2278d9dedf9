import { beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../src/contract.js';
import { DEMO_PASSWORD, type CallOptions, type DemoUser, type TestApp, useTestApp } from '../support/app.js';
import { deref, operations, type OperationInfo } from '../support/contract.js';

/**
 * Hostile input over every operation of the contract, derived from its schemas and seeded so that
 * every run sends the same requests: wrong types, numbers past their bounds, 1e400, NUL bytes, long
 * strings, wrong and absent content types, empty and malformed bodies, unknown fields and query
 * parameters, bad ids. Whatever comes in, the answer is below 500, in the envelope, declared by the
 * contract for that status (`t.call` checks the schema), and a validation error names its field.
 */

type Schema = Record<string, any>;
const doc = loadContract() as unknown as Schema;

/** mulberry32: a small seeded generator, so that a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(20261123);
const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)]!;

const typeOf = (s: Schema): string => {
  const t = Array.isArray(s.type) ? s.type.find((x: string) => x !== 'null') : s.type;
  return t ?? (s.properties ? 'object' : s.items ? 'array' : 'string');
};

/** A plausible value for a schema (valid where it is easy to be, which is enough to reach the handlers). */
function sample(input: Schema | undefined, depth = 0): unknown {
  const s = deref(input);
  if (s.examples?.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.allOf) return Object.assign({}, ...s.allOf.map((x: Schema) => sample(x, depth + 1)));
  if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0], depth + 1);
  switch (typeOf(s)) {
    case 'integer':
      return Math.max(1, s.minimum ?? 1);
    case 'number':
      return Math.max(1.5, s.minimum ?? 0);
    case 'boolean':
      return true;
    case 'array':
      return depth > 4 || !s.minItems ? [] : [sample(s.items, depth + 1)];
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const name of s.required ?? []) out[name] = sample(s.properties?.[name], depth + 1);
      return out;
    }
    default:
      if (s.format === 'date-time') return '2026-11-20T08:30:00Z';
      if (s.format === 'date') return '2026-11-20';
      if (s.format === 'email') return 'fuzz@example.test';
      if (s.format === 'uri') return 'https://example.test/fuzz';
      return 'fuzz'.padEnd(Math.min(Math.max(s.minLength ?? 4, 4), 64), 'z');
  }
}

/** Values that break a schema of the given type, or that the database cannot hold. */
function hostileValues(s: Schema): unknown[] {
  const common = [null, 'a\u0000b', [1], { x: 1 }, true];
  switch (typeOf(s)) {
    case 'integer':
    case 'number':
      return [...common, '12', 2147483648, -1, 1.7e308, 9007199254740992, 'NaN', ''];
    case 'boolean':
      return [...common, 'true', 1, 0];
    case 'array':
      return [...common, 'x', [null], ['a\u0000b'], Array.from({ length: 2000 }, () => 1)];
    case 'object':
      return [...common, 'x', [], { __proto__: { polluted: true }, constructor: { prototype: 1 } }];
    default:
      return [...common, 12, 'x'.repeat(20_000), '', ' ', '\u0000', '\ud800', '<script>alert(1)</script>', "' or 1=1 --"];
  }
}

const json = { 'content-type': 'application/json' };
const ROLE_USER: Record<string, DemoUser | 'super'> = {
  super_admin: 'super',
  admin: 'admin',
  supervisor: 'supervisor',
  team_manager: 'manager',
  agent: 'agent',
};

interface Case {
  name: string;
  options: CallOptions;
  params?: Record<string, string>;
}

function bodyInfo(op: OperationInfo) {
  const body = (op.operation as Schema).requestBody;
  if (!body) return undefined;
  const [mediaType, media] = Object.entries(body.content as Record<string, Schema>)[0]!;
  const schema = deref(media.schema);
  const example = media.examples ? (Object.values(media.examples)[0] as Schema).value : undefined;
  return { mediaType, schema, base: (example ?? sample(schema)) as Record<string, unknown> };
}

function multipartOf(fields: Record<string, unknown>, filename = 'scan.pdf') {
  const boundary = 'fuzz-boundary-7f3a';
  let text = '';
  for (const [name, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const isFile = name === 'files';
      text += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${isFile ? `; filename="${filename}"` : ''}\r\n`;
      text += isFile
        ? 'Content-Type: application/pdf\r\n\r\n%PDF-1.4\n%%EOF\n\r\n'
        : `\r\n${typeof v === 'object' ? JSON.stringify(v) : String(v)}\r\n`;
    }
  }
  return { payload: `${text}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The requests sent to one operation: the plausible one, then its mutations. */
function casesFor(op: OperationInfo): Case[] {
  const cases: Case[] = [];
  const parameters = ((op.operation as Schema).parameters ?? [])
    .map(deref)
    .concat(((doc.paths[op.path] as Schema).parameters ?? []).map(deref));
  const pathParams = parameters.filter((p: Schema) => p.in === 'path');
  const queryParams = parameters.filter((p: Schema) => p.in === 'query');
  const params = Object.fromEntries(pathParams.map((p: Schema) => [p.name, String(sample(p.schema))]));
  const body = bodyInfo(op);
  const multipart = body?.mediaType === 'multipart/form-data';
  const send = (value: unknown): CallOptions =>
    multipart ? multipartOf(value as Record<string, unknown>) : { payload: JSON.stringify(value), headers: json };

  cases.push({ name: 'plausible request', options: body ? send(body.base) : {} });

  for (const p of pathParams) {
    for (const bad of ['2147483648', '-1', 'abc', '1e400', '0', '1.5', 'a\u0000b', '99999999999999999999']) {
      cases.push({
        name: `path ${p.name}=${JSON.stringify(bad)}`,
        options: body ? send(body.base) : {},
        params: { ...params, [p.name]: bad },
      });
    }
  }
  for (const p of queryParams) {
    const values = hostileValues(deref(p.schema))
      .filter((v) => v === null || typeof v !== 'object')
      .map((v) => String(v).slice(0, 3000));
    for (const bad of [pick(values), pick(values), '1e400', 'a\u0000b'])
      cases.push({ name: `query ${p.name}=${JSON.stringify(bad).slice(0, 40)}`, options: { query: { [p.name]: bad } } });
  }
  cases.push({ name: 'undeclared query parameter', options: { query: { fuzzExtra: '1' } } });

  if (body) {
    cases.push({ name: 'no body', options: {} });
    cases.push({ name: 'empty JSON body', options: { payload: '', headers: json } });
    cases.push({ name: 'JSON null body', options: { payload: 'null', headers: json } });
    cases.push({ name: 'JSON array body', options: { payload: '[]', headers: json } });
    cases.push({ name: 'malformed JSON', options: { payload: '{"a": ', headers: json } });
    cases.push({ name: 'huge number literal', options: { payload: '{"x": 1e400}', headers: json } });
    cases.push({ name: 'text/plain body', options: { payload: 'hello', headers: { 'content-type': 'text/plain' } } });
    cases.push({
      name: 'form-urlencoded body',
      options: { payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    });
    cases.push({ name: 'body without content type', options: { payload: JSON.stringify(body.base), headers: { 'content-type': '' } } });
    cases.push({
      name: 'multipart on a JSON operation or JSON on an upload',
      options: multipart ? { payload: JSON.stringify(body.base), headers: json } : multipartOf({ a: '1' }),
    });
    cases.push({ name: 'empty object', options: send({}) });
    cases.push({ name: 'unknown field', options: send({ ...body.base, fuzzUnknown: 1 }) });
    if (multipart) {
      cases.push({ name: 'NUL in a file name', options: multipartOf(body.base, 'a\u0000.pdf') });
      cases.push({
        name: 'malformed multipart',
        options: { ...multipartOf(body.base), payload: '--fuzz-boundary-7f3a\r\nContent-Disposition: form-data; name="x"\r\n\r\nbroken' },
      });
    }
    const properties = Object.entries((body.schema.properties ?? {}) as Record<string, Schema>);
    for (const [name, schema] of properties) {
      const values = hostileValues(deref(schema));
      for (const bad of [pick(values), pick(values), pick(values)]) {
        cases.push({ name: `body ${name}=${JSON.stringify(bad)?.slice(0, 40)}`, options: send({ ...body.base, [name]: bad }) });
      }
      if (['integer', 'number'].includes(typeOf(deref(schema))) && !multipart) {
        const payload = JSON.stringify({ ...body.base, [name]: 0 }).replace(`"${name}":0`, `"${name}":1e400`);
        cases.push({ name: `body ${name}=1e400`, options: { payload, headers: json } });
      }
    }
  }
  return cases;
}

/** A validation error names its field: `body/x ...`, `querystring/x ...`, `params/x ...`, or a field map. */
function namesTheField(errors: unknown): boolean {
  if (Array.isArray(errors))
    return errors.every((e) => typeof e === 'string' && /^(body|querystring|params|headers)\b|^[a-zA-Z_.]+ /.test(e));
  if (errors && typeof errors === 'object') return Object.keys(errors).length > 0;
  return false;
}

const t = useTestApp();
const tokens = new Map<string, string>();
const login = async (username: string) => {
  const res = await t.call('login', { body: { username, password: username === 'fuzz.super' ? 'Fuzz#Super2026' : DEMO_PASSWORD } });
  expect(res.status, `login ${username}: ${JSON.stringify(res.body)}`).toBe(200);
  tokens.set(username, res.body.result.access_token);
};

beforeAll(async () => {
  // No demo account has the super_admin level: one is made for the operations that require it.
  const created = await t.call('createUser', {
    token: await t.token('admin'),
    body: {
      username: 'fuzz.super',
      email: 'fuzz.super@example.test',
      firstName: 'Fuzz',
      lastName: 'Super',
      password: 'Fuzz#Super2026',
      confirmPassword: 'Fuzz#Super2026',
      roleId: 3,
    },
  });
  const superRole = await t.db.selectFrom('roles').select('id').where('access_level', '=', 'super_admin').executeTakeFirstOrThrow();
  await t.db.updateTable('users').set({ role_id: superRole.id }).where('id', '=', created.body.result.id).execute();
  for (const user of ['fuzz.super', 'admin', 'supervisor', 'manager', 'agent']) await login(user);
});

const callerOf = (op: OperationInfo): string | null => {
  const security = (op.operation as Schema).security as Array<Record<string, string[]>> | undefined;
  if (security && security.length === 0) return null;
  const roles = security?.[0]?.bearerAuth ?? [];
  const user = ROLE_USER[roles.find((r) => r !== 'super_admin') ?? roles[0] ?? 'admin'] ?? 'admin';
  return user === 'super' ? 'fuzz.super' : user;
};

describe('hostile input over every operation of the contract', () => {
  // Session-ending operations go last, so that the sessions of the others stay valid.
  const ending = new Set([
    'logout',
    'revokeUserSessions',
    'revokeSession',
    'changeUserPassword',
    'deactivateUser',
    'deleteUser',
    'updateUser',
  ]);
  const ordered = [...operations.filter((o) => !ending.has(o.operationId)), ...operations.filter((o) => ending.has(o.operationId))];

  it.each(ordered.map((op) => [op.operationId, op] as const))(
    '%s answers every hostile request below 500, in the envelope it declares',
    async (_id, op) => {
      const failures: string[] = [];
      const user = callerOf(op);
      for (const c of casesFor(op)) {
        const token = user === null ? null : tokens.get(user)!;
        const params = c.params ?? Object.fromEntries(((op.path.match(/\{(\w+)\}/g) ?? []) as string[]).map((m) => [m.slice(1, -1), '1']));
        let res: Awaited<ReturnType<TestApp['call']>>;
        try {
          res = await t.call(op.operationId, { ...c.options, params: { ...params, ...c.params }, token });
        } catch (error) {
          failures.push(`${c.name}: ${(error as Error).message.split('\n')[0]}`);
          continue;
        }
        if (res.status >= 500) failures.push(`${c.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        if (res.status >= 400) {
          if (res.body?.success !== false || typeof res.body?.message !== 'string') failures.push(`${c.name}: not the envelope`);
          if (res.status === 400 && res.body?.message === 'Validation failed' && !namesTheField(res.body.errors)) {
            failures.push(`${c.name}: 400 does not name the field: ${JSON.stringify(res.body.errors)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    },
  );
});
