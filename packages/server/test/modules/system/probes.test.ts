import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';

const t = useTestApp();
/** `info.version` as the contract's source states it. */
const bundledVersion = /^ {2}version: (\S+)$/m.exec(
  readFileSync(new URL('../../../../../openapi/openapi.yaml', import.meta.url), 'utf8'),
)![1];

describe('GET /health (liveness)', () => {
  it('answers ok with the uptime and version, without touching any dependency', async () => {
    const res = await t.call('getHealth');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Service is alive', result: { status: 'ok', version: bundledVersion } });
    expect(res.body.result.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });
});

describe('GET /ready (readiness)', () => {
  it('reports the database up, and Redis up or not configured', async () => {
    const res = await t.call('getReadiness');
    expect(res.status).toBe(200);
    expect(res.body.result.status).toBe('ready');
    expect(res.body.result.checks.database).toMatchObject({ status: 'up' });
    expect(res.body.result.checks.database.latencyMs).toBeGreaterThanOrEqual(0);
    expect(res.body.result.checks.redis.status).toBe(process.env.REDIS_URL ? 'up' : 'not_configured');
  });
});
