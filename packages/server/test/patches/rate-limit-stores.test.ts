import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CHECKED, fallbackStore, LocalStore, RedisStore } from '../../src/patches/rate-limit-stores.js';
import { installedVersion, withinChecked } from '../support/installed.js';

/*
 * The rate-limit store patch (src/patches/rate-limit-stores.ts) loads @fastify/rate-limit's own
 * stores from its files: these tests fail when an upgrade moves them or changes their constructors.
 */
type Counter = { current: number; ttl: number };
const incr = (store: InstanceType<typeof LocalStore>, key: string) =>
  new Promise<Counter>((resolve, reject) => store.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), 60_000, 3));

/** A Redis client whose every command fails (Redis unreachable), as ioredis reports it. */
const brokenRedis = () =>
  ({
    defineCommand(name: string) {
      (this as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
        (args.at(-1) as (e: Error) => void)(new Error('Connection is closed.'));
    },
  }) as never;

describe('the rate-limit store patch', () => {
  it('runs on a @fastify/rate-limit version it was checked against', () => {
    const version = installedVersion(CHECKED.package);
    expect(withinChecked(version, CHECKED), `${CHECKED.package} ${version} is outside ${CHECKED.from} - <${CHECKED.below}`).toBe(true);
  });

  it('constructs the stores as the plugin itself does', () => {
    const index = readFileSync(createRequire(import.meta.url).resolve('@fastify/rate-limit'), 'utf8');
    expect(index).toContain("require('./store/LocalStore')");
    expect(index).toContain("require('./store/RedisStore')");
    expect(index).toMatch(
      /new RedisStore\(globalParams\.continueExceeding, globalParams\.exponentialBackoff, settings\.redis, settings\.nameSpace\)/,
    );
    expect(index).toMatch(/new LocalStore\(globalParams\.continueExceeding, globalParams\.exponentialBackoff, settings\.cache\)/);
    for (const Store of [LocalStore, RedisStore]) {
      for (const method of ['incr', 'read', 'child'])
        expect(typeof Store.prototype[method as keyof typeof Store.prototype]).toBe('function');
    }
  });

  it('counts in memory when Redis fails, per key and per route', async () => {
    const Fallback = fallbackStore(brokenRedis(), 'test:');
    const store = new Fallback({ continueExceeding: false, exponentialBackoff: false });
    expect(await incr(store, 'ip:1')).toMatchObject({ current: 1 });
    expect(await incr(store, 'ip:1')).toMatchObject({ current: 2 });
    expect(await incr(store, 'ip:2')).toMatchObject({ current: 1 });
    const route = store.child({ continueExceeding: false, exponentialBackoff: false, routeInfo: { method: 'GET', url: '/x' } });
    expect(await incr(route as never, 'ip:1')).toMatchObject({ current: 1 });
    const ttl = (await incr(store, 'ip:1')).ttl;
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
