import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { useTestApp } from '../support/app.js';

const root = join(import.meta.dirname, '../../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const TOKEN = 'scrape-token-0123456789abcdef';
const t = useTestApp({ metricsToken: TOKEN });

/** PromQL words that are not metric names. */
const PROMQL = new Set(
  'sum rate increase irate max min avg count topk bottomk histogram_quantile clamp_min clamp_max by without on ignoring group_left group_right and or unless bool offset le inf nan'.split(
    ' ',
  ),
);

/** The metric names a PromQL expression reads: its identifiers, less label matchers, groupings, durations and functions. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/\b\d[\d.]*(e-?\d+)?\b/g, ' ');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL.has(w.toLowerCase()));
}

/**
 * Every series name a scrape declares (`# TYPE` lines: a labelled counter nobody bumped yet has no
 * sample), histograms with their `_bucket`, `_count` and `_sum`.
 */
async function scrapedNames(): Promise<Set<string>> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  const names = new Set<string>();
  for (const [, name, type] of res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(name + suffix);
  }
  return names;
}

/** Names that exist only on PostgreSQL (the embedded database has no pool). */
const postgresOnly = (name: string) => name.startsWith('db_pool_');

describe('deploy/: alert rules and dashboard', () => {
  const rules = parse(read('deploy/prometheus/alerts.yaml')) as { groups: { rules: { alert: string; expr: string }[] }[] }[] | any;
  const dashboard = JSON.parse(read('deploy/grafana/dashboard.json')) as { panels: { title: string; targets: { expr: string }[] }[] };
  const ruleExprs: string[] = rules.groups.flatMap((g: { rules: { expr: string }[] }) => g.rules.map((r) => r.expr));
  const panelExprs = dashboard.panels.flatMap((p) => p.targets.map((q) => q.expr));

  it('alert on what on-call needs: error rate, p99 by operation, pool saturation, webhook backlog age, login lock spikes', () => {
    const names = rules.groups.flatMap((g: { rules: { alert: string }[] }) => g.rules.map((r) => r.alert));
    expect(names).toEqual(
      expect.arrayContaining(['ApiErrorRate', 'ApiSlowOperation', 'DatabasePoolSaturated', 'WebhookBacklogOld', 'LoginLockSpike']),
    );
  });

  it('name only metrics that GET /metrics writes', async () => {
    // Some traffic first, so that labelled series exist.
    expect((await t.call('getHealth')).status).toBe(200);
    const scraped = await scrapedNames();
    const used = new Set([...ruleExprs, ...panelExprs].flatMap(metricNames));
    expect(used.size).toBeGreaterThan(15);
    const missing = [...used].filter((name) => !scraped.has(name));
    expect(missing).toEqual(process.env.DATABASE_URL ? [] : missing.filter(postgresOnly));
    if (!process.env.DATABASE_URL) expect(missing.filter(postgresOnly).length).toBeGreaterThan(0);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, any>; networks: Record<string, any> };
  const { services } = compose;

  it('runs two API instances behind the proxy in the scale profile, on one PostgreSQL and one Redis', () => {
    expect(services['api-2'].profiles).toEqual(['scale']);
    expect(services.proxy.profiles).toEqual(['scale']);
    const env = (name: string) => services[name].environment;
    expect(env('api-1').DATABASE_URL).toBe(env('api-2').DATABASE_URL);
    expect(env('api-1').REDIS_URL).toBe(env('api-2').REDIS_URL);
    expect(env('api-1').DATABASE_URL).toMatch(/@postgres:5432\//);
    const caddyfile = read('deploy/caddy/Caddyfile');
    expect(caddyfile).toMatch(/reverse_proxy api-1:3000 api-2:3000/);
    expect(services.proxy.volumes).toContain('./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
    // X-Forwarded-For is believed from the proxy's fixed address only.
    expect(env('api-1').TRUST_PROXY).toBe(services.proxy.networks.default.ipv4_address);
    expect(compose.networks.default.ipam.config[0].subnet).toBe('172.28.0.0/16');
  });

  it('starts the instances after the one-shot migration, and tells how to allow a browser origin', () => {
    expect(services['api-2'].depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(services['api-1'].environment.SKIP_MIGRATIONS).toBe('true');
    expect(services.migrate.command).toEqual(['node', 'dist/db/cli.js', 'migrate']);
    expect(read('compose.yaml')).toMatch(/CORS_ORIGINS=https:\/\/app\.example\.com/);
  });

  it('scrapes each instance with the alert rules of deploy/', () => {
    const prometheus = parse(read('deploy/prometheus/prometheus.yaml'));
    expect(prometheus.rule_files).toEqual(['alerts.yaml']);
    expect(prometheus.scrape_configs[0].static_configs[0].targets).toEqual(['api-1:3000', 'api-2:3000']);
  });
});

describe('Dockerfile and Node versions', () => {
  it('installs dependencies in a layer only the lockfile invalidates, before the sources are copied', () => {
    const lines = read('Dockerfile').split('\n');
    const fetch = lines.findIndex((l) => l.startsWith('RUN pnpm fetch'));
    const copyAll = lines.findIndex((l) => l.startsWith('COPY . .'));
    expect(lines.slice(0, fetch).filter((l) => l.startsWith('COPY'))).toEqual(['COPY pnpm-lock.yaml pnpm-workspace.yaml ./']);
    expect(fetch).toBeLessThan(copyAll);
    expect(lines[copyAll + 1]).toMatch(/pnpm install --offline --frozen-lockfile/);
  });

  it('declares the LTS lines it runs on', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.engines.node).toBe('>=24');
    expect(pkg.devDependencies['@types/node']).toMatch(/^\^24\./);
    expect(read('.nvmrc').trim()).toBe('24');
    expect(read('Dockerfile')).toMatch(/^FROM node:24-/m);
  });
});
