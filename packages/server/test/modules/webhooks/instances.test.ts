import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { testConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { emitEvent } from '../../../src/modules/events/emit-repository.js';
import { checkTarget, isReservedAddress } from '../../../src/modules/webhooks/targets.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { withDatabase } from '../../support/global-setup.js';
import { type Receiver, startReceiver } from './receiver.js';

let t: TestApp;
let receiver: Receiver;
const webhooks = Object.assign({}, testConfig().webhooks, { pollIntervalMs: 50, retryBaseMs: 50, timeoutMs: 2000, concurrency: 5 });
beforeAll(async () => {
  receiver = await startReceiver();
  // No background worker on this app: each test says which instances deliver (a poller of this app
  // racing the strict instance below would claim its delivery first).
  t = await createTestApp({ webhooks: Object.assign({}, webhooks, { pollIntervalMs: 0 }) });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('several instances', () => {
  it('deliver each event once per attempt (claims skip the rows another instance holds)', async () => {
    // A second instance: on PostgreSQL its own connection pool to the same database, as a second process would have.
    const url = process.env.DATABASE_URL;
    const name = url ? (await sql<{ name: string }>`select current_database() as name`.execute(t.db)).rows[0]!.name : null;
    const db2 = url && name ? connect({ kind: 'postgres', url: withDatabase(url, name), poolSize: 5 }) : t.db;
    const second = await buildApp(testConfig({ webhooks, seedDemoData: false }), { db: db2 });
    await second.ready();
    try {
      const sub = await t.call('createWebhook', {
        token: await t.token('admin'),
        body: { url: receiver.url, eventTypes: ['announcement.published'] },
      });
      expect(sub.status).toBe(201);
      await t.db.updateTable('webhook_subscriptions').set({ is_active: true }).where('id', '=', sub.body.result.id).execute();
      // 60 events written at once, then both workers race for them.
      const ids = await t.db.transaction().execute(async (trx) => {
        const out: string[] = [];
        for (let i = 0; i < 60; i++) out.push(await emitEvent(trx, 'announcement.published', { type: 'announcement', id: 1 }, {} as never));
        return out;
      });
      await Promise.all([
        t.app.deliverWebhooksOnce(),
        second.deliverWebhooksOnce(),
        t.app.deliverWebhooksOnce(),
        second.deliverWebhooksOnce(),
      ]);
      await receiver.until(() => ids.every((id) => receiver.of(id).length >= 1));
      // Let any duplicate arrive before counting.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const id of ids) expect(receiver.of(id), id).toHaveLength(1);
      const rows = await t.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('subscription_id', '=', sub.body.result.id)
        .execute();
      expect(rows).toHaveLength(60);
      expect(rows.every((r) => r.status === 'SUCCEEDED' && r.attempts === 1)).toBe(true);
    } finally {
      await second.close();
      if (db2 !== t.db) await db2.destroy();
    }
  }, 120_000);
});

describe('webhook targets', () => {
  it('knows the reserved address ranges', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isReservedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isReservedAddress(a), a).toBe(false);
  });

  it('in production refuses http and private targets, by name and by address', async () => {
    const production = { requireHttps: true, allowPrivateTargets: false };
    await expect(checkTarget('http://hooks.partner.example/x', production)).rejects.toMatchObject({
      errors: ['body/url must use https in production'],
    });
    await expect(checkTarget('https://127.0.0.1/x', production)).rejects.toMatchObject({
      errors: [expect.stringMatching(/^body\/url must not resolve to a loopback, private, link-local or reserved address/)],
    });
    await expect(checkTarget('https://localhost/x', production)).rejects.toMatchObject({ statusCode: 400 });
    await expect(checkTarget('https://user:pw@8.8.8.8/x', production)).rejects.toMatchObject({
      errors: ['body/url must not carry credentials'],
    });
    await expect(checkTarget('https://8.8.8.8/x', production)).resolves.toBeUndefined();
    // WEBHOOK_ALLOW_PRIVATE_TARGETS keeps https but lifts the address rule.
    await expect(checkTarget('https://10.0.0.5/x', { requireHttps: true, allowPrivateTargets: true })).resolves.toBeUndefined();
  });

  it('refuses a private target through the API, and at delivery time after DNS resolution', async () => {
    // Retries far apart: the round makes one attempt.
    const strict = Object.assign({}, webhooks, {
      requireHttps: false,
      allowPrivateTargets: false,
      pollIntervalMs: 0,
      retryBaseMs: 3_600_000,
    });
    const app = await buildApp(testConfig({ webhooks: strict, seedDemoData: false }), { db: t.db });
    await app.ready();
    try {
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'admin', password: 'demo1234' } });
      const token = login.json().result.access_token as string;
      const refused = await app.inject({
        method: 'POST',
        url: '/admin/webhooks',
        headers: { authorization: `Bearer ${token}` },
        payload: { url: receiver.url, eventTypes: ['tutorial.completed'] },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().errors[0]).toMatch(/^body\/url must not resolve to a loopback/);
      expect(
        await t.db
          .selectFrom('webhook_subscriptions')
          .select('id')
          .where('event_types', '=', '["tutorial.completed"]' as never)
          .execute(),
      ).toEqual([]);
      // An endpoint saved while it resolved elsewhere (rebinding): the connection itself is refused.
      const row = await t.db
        .insertInto('webhook_subscriptions')
        .values({
          url: `http://localhost:${new URL(receiver.url).port}/hooks`,
          event_types: '["tutorial.completed"]',
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7fDAHYqIYNk=',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const before = receiver.received.length;
      await t.db.transaction().execute((trx) => emitEvent(trx, 'tutorial.completed', { type: 'tutorial', id: 1 }, {} as never));
      await app.deliverWebhooksOnce();
      const delivery = await t.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('subscription_id', '=', row.id)
        .executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1, response_status: null });
      expect(delivery.last_error).toMatch(/resolves to a reserved address/);
      expect(receiver.received.length).toBe(before);
      await t.db.deleteFrom('webhook_subscriptions').where('id', '=', row.id).execute();
    } finally {
      await app.close();
    }
  }, 120_000);
});
