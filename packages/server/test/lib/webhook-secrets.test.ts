import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEV_WEBHOOK_SECRET_KEY, loadConfig } from '../../src/config.js';
import { openSecret, sealStoredSecrets } from '../../src/lib/webhook-secrets.js';
import { useTestApp } from '../support/app.js';

const t = useTestApp();
const devKey = { id: 'dev', key: DEV_WEBHOOK_SECRET_KEY.slice(4) };
const plaintextLeft = async () =>
  (await t.db.selectFrom('webhook_subscriptions').select(['id', 'secret', 'secret_key_id']).execute()).filter(
    (r) => r.secret_key_id === null || r.secret.includes('whsec_'),
  );

describe('webhook signing secrets at rest', () => {
  it('are stored sealed (AES-256-GCM under the first key), shown once, and a rotation seals the new one', async () => {
    const token = await t.token('admin');
    const created = await t.call('createWebhook', { token, body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['transport.created'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const secret = created.body.result.secret!;
    const row = await t.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('id', '=', created.body.result.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_key_id).toBe('dev');
    expect(row.secret).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(row.secret).not.toContain(secret.slice('whsec_'.length, 20));
    expect(openSecret(row.secret, row.secret_key_id, [devKey])).toBe(secret);

    const rotated = await t.call('rotateWebhookSecret', { token, params: { id: row.id } });
    const after = await t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(openSecret(after.secret, after.secret_key_id, [devKey])).toBe(rotated.body.result.secret);
    expect(after.secret).not.toBe(row.secret);
    // The wrong key cannot open it (authenticated encryption).
    expect(() => openSecret(after.secret, 'dev', [{ id: 'dev', key: randomBytes(32).toString('base64') }])).toThrow();
    expect(await plaintextLeft()).toEqual([]);
  });

  it('seals secrets stored in plain text at start, and seals them again under a new first key', async () => {
    const plain = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7fDAHYqIYNk=';
    const { id } = await t.db
      .insertInto('webhook_subscriptions')
      .values({ url: 'https://hooks.partner.example/x', event_types: '["transport.created"]', secret: plain })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await plaintextLeft()).map((r) => r.id)).toEqual([id]);
    expect(await sealStoredSecrets(t.db, [devKey])).toBe(1);
    expect(await plaintextLeft()).toEqual([]);
    const sealed = await t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(openSecret(sealed.secret, sealed.secret_key_id, [devKey])).toBe(plain);

    // Rotation: a new key first, the old one still listed; every secret moves under the new key.
    const config = loadConfig({
      NODE_ENV: 'test',
      PGLITE_DATA_DIR: 'memory://',
      WEBHOOK_SECRET_KEYS: `k2026:${randomBytes(32).toString('base64')},${DEV_WEBHOOK_SECRET_KEY}`,
    });
    const keys = config.webhooks.secretKeys;
    expect(keys.map((k) => k.id)).toEqual(['k2026', 'dev']);
    const total = Number(
      (
        await t.db
          .selectFrom('webhook_subscriptions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(await sealStoredSecrets(t.db, keys)).toBe(total);
    const moved = await t.db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(moved.secret_key_id).toBe('k2026');
    expect(openSecret(moved.secret, moved.secret_key_id, keys)).toBe(plain);
    expect(await sealStoredSecrets(t.db, keys)).toBe(0);
  });

  it('require WEBHOOK_SECRET_KEYS in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://db/x' })).toThrow(
      /WEBHOOK_SECRET_KEYS is required in production/,
    );
  });
});
