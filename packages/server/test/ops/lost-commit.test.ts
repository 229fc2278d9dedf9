import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, type Cluster, missing, sleep, startApi, startCluster, until } from './processes.js';

/*
 * A keyed create whose COMMIT happens while the client is never told (the contract's introduction,
 * "Idempotent retries"), on a private cluster: the COMMIT is made to wait on a synchronous standby
 * that does not exist (it is durable locally, then waits), and its backend is terminated there,
 * or the whole cluster killed. The retry answers the committed transport, replayed; a request
 * killed before its COMMIT runs again. Never a second row, never a 409 that does not end.
 */

if (missing.postgres) console.warn(`lost-COMMIT tests skipped: ${missing.postgres}`);

describe.skipIf(missing.postgres)('a keyed create whose COMMIT is lost (a private cluster)', () => {
  let cluster: Cluster;
  let api: ApiServer;
  let auth: { authorization: string };
  let vehicleTypeId: number;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const body = (marker: string) =>
    JSON.stringify({ chargerFirstName: 'Marc', chargerLastName: 'Dubois', vehicleTypeId, loadingPoint: marker, unloadingPoint: 'Fos' });
  const create = (key: string, marker: string) =>
    api.request('/trade/transports', {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key },
      body: body(marker),
      timeoutMs: 60_000,
    });
  const rows = (marker: string) =>
    admin(async (c) => (await c.query('select id from transports where loading_point = $1', [marker])).rows.map((r) => Number(r.id)));
  /** Every later insert into transports waits at its COMMIT (or sleeps inside it) until this is undone. */
  const arm = (body: string) =>
    admin((c) =>
      c.query(`create or replace function lose_commit() returns trigger language plpgsql as $$ begin ${body}; return null; end $$;
        drop trigger if exists lose_commit on transports;
        create trigger lose_commit after insert on transports for each statement execute function lose_commit();`),
    );
  const disarm = () => admin((c) => c.query('drop trigger if exists lose_commit on transports'));
  const waiting = (event: string) =>
    admin(async (c) => (await c.query('select pid from pg_stat_activity where wait_event = $1', [event])).rows.map((r) => Number(r.pid)));

  beforeAll(async () => {
    cluster = await startCluster();
    await admin(async (c) => {
      await c.query(`alter system set synchronous_standby_names = 'standby_that_does_not_exist'`);
      await c.query(`alter system set synchronous_commit = 'local'`);
      await c.query('select pg_reload_conf()');
    });
    api = await startApi({ DATABASE_URL: cluster.url, DATABASE_POOL_SIZE: '4', DATABASE_CONNECT_TIMEOUT_MS: '1000' });
    auth = { authorization: `Bearer ${await api.login('agent')}` };
    vehicleTypeId = await admin(async (c) => Number((await c.query('select id from vehicle_types order by id limit 1')).rows[0].id));
  }, 300_000);

  afterAll(async () => {
    await api?.stop();
    await cluster?.stop();
  });

  it('replays the committed transport after the connection was lost at its COMMIT: one row', async () => {
    const key = randomUUID();
    const marker = `lost-commit-${key}`;
    await arm(`perform set_config('synchronous_commit', 'on', true)`);
    const first = create(key, marker);
    await until('the COMMIT waiting on the standby', async () => (await waiting('SyncRep')).length > 0);
    await admin((c) => c.query('select pg_terminate_backend(pid) from pg_stat_activity where wait_event = $1', ['SyncRep']));
    const lost = await first;
    await disarm();
    expect(lost.status).toBe(503);
    const committed = await rows(marker);
    expect(committed).toHaveLength(1);

    const retry = await create(key, marker);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.result.id).toBe(committed[0]);
    expect(await rows(marker)).toEqual(committed);
  });

  it('after the cluster is killed mid-request: the committed answer, or the request run again, never 409 for ever', async () => {
    // Killed at its COMMIT (durable, unanswered) and killed before it (nothing written).
    const atCommit = { key: randomUUID(), trigger: `perform set_config('synchronous_commit', 'on', true)`, event: 'SyncRep' };
    const before = { key: randomUUID(), trigger: 'perform pg_sleep(60)', event: 'PgSleep' };
    const outcomes: Record<string, { committed: number[]; retry: Awaited<ReturnType<typeof create>> }> = {};
    for (const run of [atCommit, before]) {
      const marker = `killed-${run.key}`;
      await arm(run.trigger);
      const first = create(run.key, marker);
      await until('the request waiting in the database', async () => (await waiting(run.event)).length > 0);
      await cluster.kill();
      expect((await first).status).toBe(503);
      await cluster.start();
      await until('the cluster back', async () => {
        await disarm();
        return true;
      });
      const committed = await rows(marker);
      let retry = await create(run.key, marker);
      // 503 while the pool reconnects; a 409 ends within the lease (this instance knows its request ended).
      for (let i = 0; i < 40 && retry.status !== 201; i++) {
        expect([503, 409]).toContain(retry.status);
        await sleep(500);
        retry = await create(run.key, marker);
      }
      outcomes[run.key] = { committed, retry };
      expect(retry.status).toBe(201);
      expect(await rows(marker)).toEqual([retry.body.result.id]);
    }
    const killedAtCommit = outcomes[atCommit.key]!;
    expect(killedAtCommit.committed).toEqual([killedAtCommit.retry.body.result.id]);
    expect(killedAtCommit.retry.headers.get('idempotent-replayed')).toBe('true');
    const killedBefore = outcomes[before.key]!;
    expect(killedBefore.committed).toEqual([]);
    expect(killedBefore.retry.headers.get('idempotent-replayed')).toBeNull();
  });
});
