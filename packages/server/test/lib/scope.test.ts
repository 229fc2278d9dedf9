import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ownedBy, scopeKey, withinTeam } from '../../src/lib/scope.js';
import type { AuthContext } from '../../src/lib/identity.js';

// Compiles only: no database behind it.
const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const caller = (accessLevel: AuthContext['accessLevel'], userId: number, organizationId: number | null) =>
  ({ accessLevel, userId, organizationId }) as unknown as AuthContext;

/** What a caller's scope means in SQL: the conditions the statistics are computed with. */
const conditions = (auth: AuthContext) => {
  const { sql: text, parameters } = sql`${ownedBy(auth, 'x.created_by')} ${withinTeam(auth, 'x.organization_id')}`.compile(db);
  return JSON.stringify([text, parameters]);
};

describe('scopeKey', () => {
  const callers = [
    caller('agent', 1, 10),
    caller('agent', 1, null),
    caller('agent', 2, 10),
    caller('team_manager', 3, 10),
    caller('team_manager', 4, 10),
    caller('team_manager', 3, 11),
    caller('team_manager', 5, null),
    caller('supervisor', 6, null),
    caller('supervisor', 7, 10),
    caller('admin', 8, null),
    caller('super_admin', 9, 12),
  ];

  it('is equal for two callers exactly when their ownership and team conditions are equal', () => {
    let equalPairs = 0;
    for (const a of callers) {
      for (const b of callers) {
        const same = conditions(a) === conditions(b);
        expect(scopeKey(a) === scopeKey(b), `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(same);
        if (same && a !== b) equalPairs++;
      }
    }
    // Callers who see the same records share keys (global views; managers of one team), so the check above is not vacuous.
    expect(equalPairs).toBeGreaterThan(0);
  });

  it('tells apart an agent, their team manager and a supervisor', () => {
    const keys = new Set([
      scopeKey(caller('agent', 1, 10)),
      scopeKey(caller('team_manager', 1, 10)),
      scopeKey(caller('supervisor', 1, 10)),
    ]);
    expect(keys.size).toBe(3);
  });
});
