import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTrustProxy } from '../src/config.js';
import { DataDirLocked, lockDataDir } from '../src/db/lock.js';

const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };

describe('configuration', () => {
  it('reports every wrong variable on one line, with the rule and the accepted values', () => {
    const load = () => loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', CORS_ORIGINS: 'ftp://x' });
    expect(load).toThrow(ConfigError);
    const message = (() => {
      try {
        load();
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).not.toContain('\n');
    expect(message).toContain('PORT must be an integer (got "abc")');
    expect(message).toContain('LOG_LEVEL must be one of: fatal, error, warn, info, debug, trace, silent (got "loud")');
    expect(message).toContain('CORS_ORIGINS must match');
  });

  it('refuses production without DATABASE_URL unless the embedded database is asked for', () => {
    expect(() => loadConfig(production)).toThrow(/DATABASE_URL is required in production.*ALLOW_EMBEDDED_DATABASE=true/);
    expect(loadConfig({ ...production, ALLOW_EMBEDDED_DATABASE: 'true' }).allowEmbeddedDatabase).toBe(true);
    expect(loadConfig({ ...production, DATABASE_URL: 'postgres://db/transport_ops' }).seedDemoData).toBe(false);
  });

  it('reads the database timeouts, the CORS allow-list and SKIP_MIGRATIONS, with defaults', () => {
    expect(loadConfig({})).toMatchObject({
      databaseTimeouts: { connectMs: 3000, statementMs: 15_000, queryMs: 20_000 },
      corsOrigins: [],
      skipMigrations: false,
    });
    const c = loadConfig({
      DATABASE_CONNECT_TIMEOUT_MS: '500',
      CORS_ORIGINS: 'https://app.example, https://admin.example',
      SKIP_MIGRATIONS: 'true',
    });
    expect(c.databaseTimeouts.connectMs).toBe(500);
    expect(c.corsOrigins).toEqual(['https://app.example', 'https://admin.example']);
    expect(c.skipMigrations).toBe(true);
  });
});

describe('FILE_STORE', () => {
  it('keeps files in a directory beside an on-disk embedded database, in the database on PostgreSQL and in memory', () => {
    expect(loadConfig({ PGLITE_DATA_DIR: '/srv/pglite' }).fileStore).toEqual({ kind: 'directory', dir: join('/srv/pglite', 'files') });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app' }).fileStore).toEqual({ kind: 'database', dir: null });
    expect(loadConfig({ PGLITE_DATA_DIR: 'memory://' }).fileStore).toEqual({ kind: 'database', dir: null });
    expect(loadConfig({ PGLITE_DATA_DIR: 'memory://', FILE_STORE: 'directory' }).fileStore).toEqual({ kind: 'directory', dir: null });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/app', FILE_STORE: 'directory', FILE_STORE_DIR: '/mnt/files' }).fileStore).toEqual({
      kind: 'directory',
      dir: '/mnt/files',
    });
  });

  it('refuses an unknown store, and the directory store on PostgreSQL without a directory, in one line', () => {
    expect(() => loadConfig({ FILE_STORE: 'disk' })).toThrow('FILE_STORE must be one of: directory, database (got "disk")');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/app', FILE_STORE: 'directory' })).toThrow(
      /^Configuration error: FILE_STORE_DIR is required with FILE_STORE=directory on PostgreSQL[^\n]*$/,
    );
  });
});

describe('the embedded database lock', () => {
  it('refuses a second owner while the first one lives, and takes over a lock whose owner is gone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'transport-ops-lock-'));
    try {
      const data = join(dir, 'pglite');
      writeFileSync(`${data}.lock`, String(process.ppid)); // a live process that is not this one
      expect(() => lockDataDir(data)).toThrow(DataDirLocked);
      expect(() => lockDataDir(data)).toThrow(`is in use by process ${process.ppid}`);
      writeFileSync(`${data}.lock`, '999999999'); // no such process
      const release = lockDataDir(data);
      release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default: no client can choose its address with X-Forwarded-For', () => {
    expect(loadConfig({ ...production, DATABASE_URL: 'postgres://db/transport_ops' }).trustProxy).toBe(false);
    for (const off of [undefined, '', 'false', '0']) expect(parseTrustProxy(off)).toBe(false);
  });

  it('takes a hop count or a list of addresses and CIDR ranges', () => {
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.10,::1,fd00::/8')).toEqual(['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/8']);
  });

  it('refuses `true` and anything that is not an address, naming the entry', () => {
    expect(() => parseTrustProxy('true')).toThrow('TRUST_PROXY: "true" is not a hop count, an IP address or a CIDR range');
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow('"10.0.0.0/33"');
    expect(() => parseTrustProxy('proxy.example')).toThrow('"proxy.example"');
  });
});
