import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { cacheCases } from './cache-cases.js';

// The process-local cache (no Redis): the same rules as through Redis.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ redisUrl: undefined });
});
afterAll(async () => t?.close());

cacheCases(() => t);
