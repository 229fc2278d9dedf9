import { randomBytes } from 'node:crypto';
import { envSchema } from 'env-schema';

/**
 * The one place that reads the environment. Everything else receives a Config.
 * Values are validated at start; a bad value stops the process with a message naming it.
 */
export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  host: string;
  port: number;
  logLevel: string;
  /** PostgreSQL connection string; unset means the embedded PGlite. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** PGlite data directory, or `memory://`. */
  pgliteDataDir: string;
  /** Redis connection string; unset means in-process rate limits, caches and revocation. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel of this deployment. */
  redisPrefix: string;
  jwt: { secret: string; issuer: string; audience: string; accessTtlSeconds: number; refreshTtlSeconds: number };
  /** Seed demo data into an empty database (never in production). */
  seedDemoData: boolean;
  /** Public base address, used in links the API hands out (certificate QR codes). */
  publicBaseUrl: string;
  /** Rate limits per hour. */
  rateLimit: { anonymous: number; user: number; admin: number; windowMs: number };
  /** Largest accepted JSON body. */
  jsonBodyLimitBytes: number;
  /** Sandbox mode (`pnpm sandbox`): in-memory demo database, `POST /sandbox/reset` exists. Never in production. */
  sandbox: boolean;
}

/** Documented development secret: used when JWT_SECRET is unset outside production. */
export const DEV_JWT_SECRET = 'dev-only-secret-change-me-0123456789abcdef';

interface Env {
  NODE_ENV: Config['nodeEnv'];
  HOST: string;
  PORT: number;
  LOG_LEVEL: string;
  DATABASE_URL?: string;
  DATABASE_POOL_SIZE: number;
  PGLITE_DATA_DIR: string;
  REDIS_URL?: string;
  REDIS_PREFIX: string;
  JWT_SECRET?: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  SEED_DEMO_DATA?: boolean;
  PUBLIC_BASE_URL?: string;
  RATE_LIMIT_ANONYMOUS: number;
  RATE_LIMIT_USER: number;
  RATE_LIMIT_ADMIN: number;
  SANDBOX?: boolean;
}

const schema = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', enum: ['development', 'test', 'production'], default: 'development' },
    HOST: { type: 'string', default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_SIZE: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    PGLITE_DATA_DIR: { type: 'string', minLength: 1, default: '.data/pglite' },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    REDIS_PREFIX: { type: 'string', minLength: 1, default: 'transport-ops:' },
    JWT_SECRET: { type: 'string', minLength: 32 },
    JWT_ISSUER: { type: 'string', minLength: 1, default: 'transport-ops' },
    JWT_AUDIENCE: { type: 'string', minLength: 1, default: 'transport-ops-api' },
    SEED_DEMO_DATA: { type: 'boolean' },
    PUBLIC_BASE_URL: { type: 'string', pattern: '^https?://' },
    RATE_LIMIT_ANONYMOUS: { type: 'integer', minimum: 1, default: 100 },
    RATE_LIMIT_USER: { type: 'integer', minimum: 1, default: 1000 },
    RATE_LIMIT_ADMIN: { type: 'integer', minimum: 1, default: 5000 },
    SANDBOX: { type: 'boolean' },
  },
} as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = envSchema<Env>({ schema, data: { ...env }, dotenv: false });
  const production = e.NODE_ENV === 'production';
  if (production && !e.JWT_SECRET) {
    throw new Error('JWT_SECRET is required in production (at least 32 characters)');
  }
  if (e.SANDBOX && (production || e.DATABASE_URL)) {
    throw new Error('SANDBOX runs only outside production, on the embedded database (unset DATABASE_URL)');
  }
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    pgliteDataDir: e.PGLITE_DATA_DIR,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    jwt: {
      secret: e.JWT_SECRET ?? DEV_JWT_SECRET,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      accessTtlSeconds: 3600,
      refreshTtlSeconds: 7 * 24 * 3600,
    },
    seedDemoData: !production && (e.SEED_DEMO_DATA ?? true),
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`,
    rateLimit: { anonymous: e.RATE_LIMIT_ANONYMOUS, user: e.RATE_LIMIT_USER, admin: e.RATE_LIMIT_ADMIN, windowMs: 3600_000 },
    jsonBodyLimitBytes: 10 * 1024 * 1024,
    sandbox: e.SANDBOX ?? false,
  };
}

/** A configuration for tests: in-memory database unless DATABASE_URL is given, random secret. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PGLITE_DATA_DIR: 'memory://' });
  return { ...base, jwt: { ...base.jwt, secret: randomBytes(32).toString('hex') }, ...overrides };
}
