import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';

/*
 * Creates whose answer carries a one-time secret take an `Idempotency-Key` too (the contract's
 * introduction, "Idempotent retries"): the retry gets the created record replayed, with the secret
 * null, and no second record; the secret is never stored with the answer.
 */

const t = useTestApp();
const stored = (key: string) =>
  t.db.selectFrom('idempotency_keys').select(['status', 'body']).where('key', '=', key).executeTakeFirstOrThrow();

describe('Idempotency-Key on creates that answer a secret', () => {
  it('POST /admin/webhooks: one endpoint, the replay names it with secret null, and the secret is not stored', async () => {
    const key = randomUUID();
    const body = { url: 'https://hooks.partner.example/retry', eventTypes: ['transport.created' as const], description: 'Retried' };
    const create = async (payload = body) =>
      t.call('createWebhook', { token: await t.token('supervisor'), body: payload, headers: { 'idempotency-key': key } });
    const first = await create();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const secret = first.body.result.secret!;
    expect(secret).toMatch(/^whsec_/);
    const retry = await create();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.result).toEqual({ ...first.body.result, secret: null });
    const row = await stored(key);
    expect(row.status).toBe(201);
    expect(row.body).not.toContain(secret);
    const endpoints = await t.db.selectFrom('webhook_subscriptions').select('id').where('url', '=', body.url).execute();
    expect(endpoints).toHaveLength(1);
    expectError(await create({ ...body, description: 'Another' }), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('POST /admin/api-keys: one key, the replay names it with key null, and the key is not stored', async () => {
    const key = randomUUID();
    const create = async (name = 'Retried partner key') =>
      t.call('createApiKey', { token: await t.token('admin'), body: { name, roleId: 5 }, headers: { 'idempotency-key': key } });
    const first = await create();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const secret = first.body.result.key!;
    const retry = await create();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.result).toEqual({ ...first.body.result, key: null });
    expect((await stored(key)).body).not.toContain(secret);
    const keys = await t.db.selectFrom('api_keys').select('id').where('name', '=', 'Retried partner key').execute();
    expect(keys).toHaveLength(1);
    expectError(await create('Another name'), 422, 'IDEMPOTENCY_KEY_REUSED');
  });
});
