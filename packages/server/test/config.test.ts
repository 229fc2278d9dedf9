import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTrustProxy } from '../src/config.js';
import { DataDirLocked, lockDataDir } from '../src/db/lock.js';

const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), WEBHOOK_SECRET_KEYS: `k1:${'A'.repeat(43)}=` };

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

  it('refuses `true` and anything that is not an address, naming the entry, as a configuration error', () => {
    expect(() => parseTrustProxy('true')).toThrow(ConfigError);
    expect(() => parseTrustProxy('true')).toThrow(
      /^Configuration error: TRUST_PROXY=true is refused \(any client could choose its address/,
    );
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(ConfigError);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(
      'Configuration error: TRUST_PROXY must be a hop count, or IP addresses or CIDR ranges separated by commas (got "10.0.0.0/33")',
    );
    expect(() => parseTrustProxy('proxy.example')).toThrow('"proxy.example"');
  });
});

/** The message a configuration error would print (the server prints exactly that line). */
const failure = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('configuration errors never print a secret', () => {
  it('names JWT_SECRET and ADMIN_PASSWORD and their rule, but not their value', () => {
    const message = failure({ JWT_SECRET: 'tooshort-secret-value', ADMIN_PASSWORD: 'hunter2' });
    expect(message).toContain('JWT_SECRET must NOT have fewer than 32 characters (got a value of 21 characters)');
    expect(message).toContain('ADMIN_PASSWORD must NOT have fewer than 8 characters (got a value of 7 characters)');
    expect(message).not.toContain('tooshort-secret-value');
    expect(message).not.toContain('hunter2');
  });

  it('prints a connection string without its password', () => {
    const message = failure({ DATABASE_URL: 'mysql://app:s3cret-pw@db:3306/transport', REDIS_URL: 'http://:r3dis-pw@cache:6379' });
    expect(message).toContain('DATABASE_URL must match ^postgres(ql)?:// (got "mysql://app:***@db:3306/transport")');
    expect(message).toContain('REDIS_URL must match ^rediss?:// (got "http://:***@cache:6379")');
    expect(message).not.toMatch(/s3cret-pw|r3dis-pw/);
  });

  it('stops on TRUST_PROXY=true with one line naming the rule', () => {
    const message = failure({ TRUST_PROXY: 'true' });
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^Configuration error: TRUST_PROXY=true is refused/);
  });
});
