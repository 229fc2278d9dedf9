import { beforeAll, describe, expect, it } from 'vitest';
import { errorMessages, useTestApp } from '../support/app.js';
import { newUserBody } from '../modules/users/support.js';

const t = useTestApp();
let admin: string;
beforeAll(async () => {
  admin = await t.token('admin');
});

const multipart = (fields: Record<string, string>) => {
  const boundary = 'x-boundary-1234';
  const body =
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}--\r\n`;
  return { payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
};

describe('content types', () => {
  it('refuses a multipart body on a JSON operation with 415, before its schema could be walked around', async () => {
    const res = await t.call('changeUserPassword', {
      token: admin,
      params: { id: 2 },
      ...multipart({ newPassword: 'x', confirmPassword: 'x' }),
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({
      success: false,
      errors: { code: 'UNSUPPORTED_MEDIA_TYPE', contentType: expect.stringContaining('multipart/form-data') },
    });
  });

  it('refuses text/plain on a JSON operation with 415', async () => {
    const res = await t.call('login', { payload: 'username=admin', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.errors).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', contentType: 'text/plain' });
  });

  it('answers 400 naming `body` when a required body is missing or empty', async () => {
    const none = await t.call('login', {});
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ success: false, message: 'Validation failed', errors: ['body is required'] });
    const empty = await t.call('login', { payload: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual(['body is required']);
    const nul = await t.call('login', { payload: 'null', headers: { 'content-type': 'application/json' } });
    expect(nul.status).toBe(400);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await t.call('login', { payload: '{"username": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body is not valid JSON']);
  });
});

describe('strict bodies, coerced parameters', () => {
  it('does not coerce body types: a string is not a number, true is not 1, "" is not null', async () => {
    const res = await t.call('createUser', { token: admin, body: newUserBody({ roleId: '3', organizationId: true, countryId: '' }) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        'body/roleId must be integer',
        'body/organizationId must be integer',
        expect.stringMatching(/^body\/countryId must be/),
      ]),
    );
  });

  it('reports a value of the wrong type by its type alone, not by the rules of the type it should have', async () => {
    const token = await t.token('agent');
    for (const body of [[], [{ customerId: 1, newCustomer: {} }], 42, true]) {
      const res = await t.call('createTransport', { token, body: body as never });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors, JSON.stringify(body)).toEqual(['body must be object']);
    }
    const nested = await t.call('createTransport', {
      token,
      body: { chargerFirstName: 'A', chargerLastName: 'B', vehicleTypeId: 1, loadingPoint: 'Dock 4', newCustomer: ['x'] } as never,
    });
    expect(nested.status).toBe(400);
    expect(nested.body.errors).toEqual(['body/newCustomer must be object']);
  });

  it('still converts query and path values from text', async () => {
    const res = await t.call('getUserById', { token: admin, params: { id: '1' } });
    expect(res.status).toBe(200);
    expect(res.body.result.id).toBe(1);
  });

  it('refuses an undeclared query parameter by name', async () => {
    const res = await t.call('listUsers', { token: admin, query: { limit: 5, sneaky: 'x' } as never });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['querystring/sneaky is not an accepted field']);
  });
});

describe('numbers and text the database cannot hold', () => {
  it('refuses ids beyond 2^31-1 in the path, the query and the body', async () => {
    const path = await t.call('getUserById', { token: admin, params: { id: '2147483648' } });
    expect(path.status).toBe(400);
    expect(path.body.errors).toEqual(['params/id must be <= 2147483647']);
    const query = await t.call('listUsers', { token: admin, query: { roleId: '99999999999' } });
    expect(query.status).toBe(400);
    expect(query.body.errors).toEqual(['querystring/roleId must be <= 2147483647']);
    const body = await t.call('createUser', { token: admin, body: newUserBody({ roleId: 2 ** 40 }) });
    expect(body.status).toBe(400);
    expect(body.body.errors).toEqual(['body/roleId must be <= 2147483647']);
  });

  it('refuses 1e400 (Infinity once parsed) and 1e308', async () => {
    for (const literal of ['1e400', '1e308']) {
      const payload = JSON.stringify(newUserBody()).replace('"roleId":3', `"roleId":${literal}`);
      const res = await t.call('createUser', { token: admin, payload, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(errorMessages(res.body).join()).toMatch(/^body\/roleId must be/);
    }
  });

  it('refuses a NUL character in any string: body, filter and path', async () => {
    const body = await t.call('createUser', { token: admin, body: newUserBody({ firstName: 'Ja\u0000ne' }) });
    expect(body.status).toBe(400);
    expect(body.body.errors).toEqual(['body/firstName must not contain NUL characters']);
    const filter = await t.call('listUsers', { token: admin, query: { search: 'a\u0000b' } });
    expect(filter.status).toBe(400);
    expect(filter.body.errors).toEqual(['querystring/search must not contain NUL characters']);
  });
});

describe('races end on the constraint, never in a 500', () => {
  it('50 parallel identical createUser calls give one 201 and 49 409 ALREADY_EXISTS', async () => {
    const body = newUserBody();
    const results = await Promise.all(Array.from({ length: 50 }, () => t.call('createUser', { token: admin, body })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const conflict = results.find((r) => r.status === 409)!;
    expect(conflict.body.errors).toMatchObject({ code: 'ALREADY_EXISTS', field: expect.stringMatching(/^(username|email)$/) });
  });
});
