import type { HTTPMethods } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTransportOpsClient } from '../../../sdk/src/index.js';
import { DEMO_PASSWORD, useTestApp } from '../support/app.js';
import { loadRefs, type Refs, transportBody } from '../modules/transports/fixtures.js';

/*
 * The SDK against the real server (through `inject`): a POST whose answer is lost after the server
 * processed it is retried under its idempotency key, and `paginate` follows cursors to the end of
 * a list far beyond the 10,000-row offset cap.
 */

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

/** fetch, answered by the app in this process. */
async function serverFetch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const res = await t.app.inject({
    method: request.method as HTTPMethods,
    url: url.pathname + url.search,
    headers: Object.fromEntries(request.headers),
    ...(payload ? { payload } : {}),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
  return new Response(res.statusCode === 304 ? null : res.rawPayload, { status: res.statusCode, headers });
}

const transportCount = async () => Number((await sql<{ n: number }>`select count(*)::int as n from transports`.execute(t.db)).rows[0]!.n);

describe('SDK retries of a POST whose answer was lost', () => {
  it('retries under the same key after the server processed the request, and the app gets the one transport', async () => {
    const sent: Request[] = [];
    let lose = true;
    // The request reaches the server and is processed; its answer is lost on the way back.
    const losingFetch = async (request: Request) => {
      sent.push(request.clone());
      const response = await serverFetch(request);
      if (lose && request.method === 'POST' && new URL(request.url).pathname === '/trade/transports') {
        lose = false;
        throw new TypeError('socket hang up');
      }
      return response;
    };
    const api = createTransportOpsClient({ baseUrl: 'http://api.test', fetch: losingFetch, baseDelayMs: 1 });
    await api.login('agent', DEMO_PASSWORD);
    const before = await transportCount();
    const transport = await api.op.createTransport(transportBody(refs) as never);

    expect(await transportCount()).toBe(before + 1);
    const row = await t.db
      .selectFrom('transports')
      .select(['id', 'loading_number'])
      .where('id', '=', transport.id)
      .executeTakeFirstOrThrow();
    expect(row.loading_number).toBe(transport.loadingNumber);
    const posts = sent.filter((r) => r.method === 'POST' && new URL(r.url).pathname === '/trade/transports');
    expect(posts).toHaveLength(2);
    const key = posts[0]!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers.get('idempotency-key')).toBe(key);
  });

  it('sends a new key per call, and the caller may choose it', async () => {
    const sent: Request[] = [];
    const api = createTransportOpsClient({
      baseUrl: 'http://api.test',
      fetch: async (request) => {
        sent.push(request.clone());
        return serverFetch(request);
      },
    });
    await api.login('agent', DEMO_PASSWORD);
    const a = await api.op.createTransport(transportBody(refs) as never);
    const b = await api.op.createTransport(transportBody(refs) as never);
    expect(b.id).not.toBe(a.id);
    const c = await api.op.createTransport(transportBody(refs) as never, { idempotencyKey: 'order-42-transport' });
    const again = await api.op.createTransport(transportBody(refs) as never, { idempotencyKey: 'order-42-transport' });
    expect(again.id).toBe(c.id);
    const keys = sent
      .filter((r) => r.method === 'POST' && new URL(r.url).pathname === '/trade/transports')
      .map((r) => r.headers.get('idempotency-key'));
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
    expect(keys.slice(2)).toEqual(['order-42-transport', 'order-42-transport']);
  });

  it('sends If-Match and gets 412 on a stale tag; its ETag cache answers an unchanged GET from memory', async () => {
    const sent: Request[] = [];
    const api = createTransportOpsClient({
      baseUrl: 'http://api.test',
      etagCache: true,
      fetch: async (request) => {
        sent.push(request.clone());
        return serverFetch(request);
      },
    });
    await api.login('agent', DEMO_PASSWORD);
    const created = await api.op.createTransport(transportBody(refs) as never);
    const first = await api.GET('/trade/transports/{id}', { params: { path: { id: created.id } } });
    const etag = first.response.headers.get('etag')!;
    const second = await api.op.getTransportById({ id: created.id });
    expect(second).toEqual(first.data!.result);
    const revalidation = sent.at(-1)!;
    expect(revalidation.headers.get('if-none-match')).toBe(etag);

    await api.op.updateTransport({ id: created.id }, { loadingPoint: 'Dijon, Nord' }, { ifMatch: etag });
    const stale = await api.op
      .updateTransport({ id: created.id }, { loadingPoint: 'Dijon, Sud' }, { ifMatch: etag })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED' });
    const fresh = await api.op.getTransportById({ id: created.id });
    expect(fresh.loadingPoint).toBe('Dijon, Nord');
  });
});

describe('SDK paginate over a large list', () => {
  it('reaches the end of 20,000 transports as a supervisor by following next_cursor', async () => {
    const N = 20_000;
    // Straight into the table: the statistics roll-ups (triggers) are not what this test reads.
    await t.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`
      insert into transports (loading_number, charger_first_name, charger_last_name, vehicle_type_id, loading_point, unloading_point,
        product_label, status, created_by, created_at, updated_at)
      select 'TRP-20260101-' || lpad((g + 5000000)::text, 7, '0'), 'Driver', 'No' || g, ${refs.vehicleType('Semi-trailer truck')},
        'Lyon, Port', 'Marseille, Fos', 'Steel', 'PENDING', ${refs.user('agent')}, now() - g * interval '1 minute', now()
      from generate_series(1, ${N}) g`.execute(trx);
    });
    const total = await transportCount();
    expect(total).toBeGreaterThan(N);
    const api = createTransportOpsClient({ baseUrl: 'http://api.test', fetch: serverFetch });
    await api.login('supervisor', DEMO_PASSWORD);
    const ids = new Set<number>();
    for await (const transport of api.paginate('listTransports', { limit: 100 })) ids.add(transport.id);
    expect(ids.size).toBe(total);
  }, 600_000);
});
