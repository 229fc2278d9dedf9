import { describe, expect, it } from 'vitest';
import { operations } from './document.js';

// Every endpoint the interface specification shows, by method and path.
const specified = [
  'POST /auth/login',
  'POST /auth/logout',
  'POST /auth/refresh',
  'GET /auth/profile',
  'POST /auth/validate',
  'GET /trade/announcements',
  'GET /trade/announcements/{id}',
  'POST /trade/announcements/{id}/mark-read',
  'POST /trade/announcements/{id}/like',
  'GET /trade/announcements/categories',
  'GET /trade/announcements/important',
  'GET /trade/tutorials',
  'GET /trade/tutorials/{id}',
  'POST /trade/tutorials/{id}/complete',
  'POST /trade/tutorials/{id}/progress',
  'GET /trade/tutorials/categories',
  'GET /trade/tutorials/search',
  'POST /trade/transports',
  'GET /trade/transports',
  'GET /trade/transports/{id}',
  'GET /trade/transports/vehicle-types',
  'POST /trade/transports/upload',
  'POST /trade/complaints',
  'GET /trade/complaints',
  'GET /trade/complaints/{id}',
  'GET /trade/complaints/{id}/status-history',
  'GET /trade/complaints/types',
  'POST /trade/complaints/upload',
  'POST /trade/forum/topics',
  'GET /trade/forum/topics',
  'GET /trade/forum/topics/{id}',
  'POST /trade/forum/messages',
  'POST /trade/forum/messages/{id}/like',
  'POST /trade/forum/messages/{id}/report',
  'GET /trade/forum/categories',
  'GET /trade/forum/tags',
  'GET /health',
];

// The specification's count per module, which the document must reach at least.
const counts: Array<[string, number]> = [
  ['Admin actors', 25],
  ['Admin users', 12],
  ['Admin organizations', 5],
  ['Admin complaints', 9],
  ['Admin transports', 8],
  ['Admin forum', 6],
  ['Admin configurations', 42],
  ['Admin announcements', 8],
  ['Trade complaints', 8],
  ['Trade transports', 7],
  ['Trade forum', 21],
  ['Trade announcements', 5],
  ['Trade tutorials', 5],
  ['Authentication', 5],
];

// The specification's path families of the administration.
const adminFamilies = [
  '/admin/actors/admins',
  '/admin/actors/agents',
  '/admin/actors/customers',
  '/admin/actors/stats',
  '/admin/users',
  '/admin/users/sessions',
  '/admin/users/{id}/password',
  '/admin/organizations',
  '/admin/complaints',
  '/admin/complaints/stats',
  '/admin/complaints/{id}/status',
  '/admin/transports',
  '/admin/transports/{id}/assign-customer',
  '/admin/transports/stats',
  '/admin/forum/reported-messages',
  '/admin/forum/stats',
  '/admin/configurations/categories',
  '/admin/configurations/complaint-types',
  '/admin/configurations/roles',
  '/admin/configurations/tags',
  '/admin/configurations/vehicle-types',
  '/admin/configurations/countries',
  '/admin/configurations/states',
  '/admin/announcements',
  '/admin/announcements/{id}/publish',
  '/admin/announcements/bulk-action',
];

const present = new Set(operations.map((o) => `${o.method} ${o.path}`));

describe('inventory of the contract', () => {
  it.each(specified)('declares %s', (endpoint) => {
    expect(present.has(endpoint)).toBe(true);
  });

  it.each(counts)('module %s has at least %i operations', (tag, count) => {
    const n = operations.filter((o) => o.op.tags?.includes(tag)).length;
    console.log(`${tag}: ${n} (specification: ${count})`);
    expect(n).toBeGreaterThanOrEqual(count);
  });

  it.each(adminFamilies)('covers the administration path family %s', (family) => {
    expect(operations.some((o) => o.path === family || o.path.startsWith(`${family}/`))).toBe(true);
  });

  it('moderates the forum under /admin/forum/*/moderate', () => {
    expect(operations.filter((o) => /^\/admin\/forum\/.+\/moderate$/.test(o.path)).length).toBeGreaterThanOrEqual(2);
  });

  it('gives every operation a unique camelCase operationId, one tag, a summary, a description and a 4XX response', () => {
    // Probes take no input and no credentials, and are never rate limited: they have no 4XX.
    const probes = new Set(['getHealth', 'getReadiness']);
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.tags, where).toHaveLength(1);
      expect(op.summary, where).toBeTruthy();
      expect(op.description, where).toBeTruthy();
      if (!probes.has(op.operationId))
        expect(
          Object.keys(op.responses).some((s) => s.startsWith('4')),
          where,
        ).toBe(true);
    }
  });

  it('states the roles of every operation: public ones have an empty requirement, the others list role names', () => {
    const roles = new Set(['agent', 'team_manager', 'supervisor', 'admin', 'super_admin']);
    const publicOps = new Set([
      'login',
      'refreshToken',
      'validateToken',
      'getHealth',
      'getReadiness',
      'verifyCertificate',
      'resetSandbox',
      'getPublicTracking',
    ]);
    for (const { op, path } of operations) {
      expect(Array.isArray(op.security), op.operationId).toBe(true);
      if (publicOps.has(op.operationId)) {
        expect(op.security, op.operationId).toEqual([]);
      } else {
        // A bearer token, and (except for the sign-in and API key operations) an API key, of the same roles.
        const names: string[] = op.security[0].bearerAuth;
        const bearerOnly = path.startsWith('/auth/') || path.startsWith('/admin/api-keys');
        expect(op.security, op.operationId).toEqual(bearerOnly ? [{ bearerAuth: names }] : [{ bearerAuth: names }, { apiKeyAuth: names }]);
        expect(names.length, op.operationId).toBeGreaterThan(0);
        for (const name of names) expect(roles.has(name), `${op.operationId}: ${name}`).toBe(true);
      }
    }
  });
});
