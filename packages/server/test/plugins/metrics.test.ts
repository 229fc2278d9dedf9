import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { loadRefs, type Refs, transportBody } from '../modules/transports/fixtures.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const onPostgres = Boolean(process.env.DATABASE_URL);

let t: TestApp;
let refs: Refs;
beforeAll(async () => {
  t = await createTestApp({ metricsToken: TOKEN });
  refs = await loadRefs(t);
});
afterAll(async () => t?.close());

const scrape = (authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

/** The samples of a Prometheus text exposition: `name{labels}` -> value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('GET /metrics', () => {
  it('after traffic, shows request durations by operationId, method and status class, the webhook backlog and the process figures', async () => {
    const agent = await t.token('agent');
    // A webhook endpoint that no worker serves here (the tests' worker is off): its deliveries stay pending.
    const sub = await t.call('createWebhook', {
      token: await t.token('supervisor'),
      body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['transport.created'], description: 'never served' },
    });
    expect(sub.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await t.call('listTransports', { token: agent })).status).toBe(200);
    const created = await t.call('createTransport', { token: agent, body: transportBody(refs, { loadingPoint: 'Metrics dock' }) });
    expect(created.status).toBe(201);
    expect((await t.call('getTransportById', { token: agent, params: { id: 999_999 } })).status).toBe(404);

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = samples(res.body);
    const count = (op: string, method: string, cls: string) =>
      m.get(`http_server_request_duration_seconds_count{operation="${op}",method="${method}",status_class="${cls}"}`) ?? 0;
    expect(count('listTransports', 'GET', '2xx')).toBeGreaterThanOrEqual(3);
    expect(count('createTransport', 'POST', '2xx')).toBeGreaterThanOrEqual(1);
    expect(count('getTransportById', 'GET', '4xx')).toBeGreaterThanOrEqual(1);
    expect(m.get('http_server_request_duration_seconds_bucket{le="+Inf",operation="listTransports",method="GET",status_class="2xx"}')).toBe(
      count('listTransports', 'GET', '2xx'),
    );
    // The transport's event waits for its delivery: pending and due now.
    expect(m.get('webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
    expect(m.get('webhook_deliveries_due')).toBeGreaterThanOrEqual(1);
    expect(m.get('webhook_deliveries_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(m.has('email_outbox_queued')).toBe(true);
    expect(m.get('db_query_duration_seconds_count{outcome="ok"}')).toBeGreaterThan(0);
    expect(m.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(m.get('process_cpu_seconds_total')).toBeGreaterThan(0);
    if (onPostgres) {
      // The tests' pools have 5 connections (test/support/app.ts).
      expect(m.get('db_pool_max_connections')).toBe(5);
      expect(m.get('db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(m.get('db_pool_idle_connections')).toBeLessThanOrEqual(m.get('db_pool_connections')!);
      expect(m.get('db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    } else {
      // The embedded database is one connection in the process: no pool to describe.
      expect(m.has('db_pool_connections')).toBe(false);
    }
  });

  it('counts its own scrapes under the route, never as an operation, and is not rate limited', async () => {
    for (let i = 0; i < 3; i++) expect((await scrape(`Bearer ${TOKEN}`)).statusCode).toBe(200);
    const m = samples((await scrape(`Bearer ${TOKEN}`)).body);
    expect(
      m.get('http_server_request_duration_seconds_count{operation="/metrics",method="GET",status_class="2xx"}'),
    ).toBeGreaterThanOrEqual(3);
    expect((await scrape(`Bearer ${TOKEN}`)).headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('refuses a scrape without the token, or with another one, with the 401 envelope', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`]) {
      const res = await scrape(authorization);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        success: false,
        message: 'Authentication required',
        errors: ['GET /metrics takes Authorization: Bearer <METRICS_TOKEN>'],
      });
      expect(res.body).not.toContain('http_server_request_duration_seconds');
    }
  });

  it('does not exist without METRICS_TOKEN: 404 like any path outside the contract', async () => {
    const plain = await createTestApp();
    try {
      const res = await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).toBe(404);
      expect(res.json().errors).toMatchObject({ code: 'ROUTE_NOT_FOUND', url: '/metrics' });
    } finally {
      await plain.close();
    }
  });
});
