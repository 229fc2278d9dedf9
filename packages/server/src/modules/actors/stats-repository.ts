import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Result } from '../../http/handlers.js';
import { hasGlobalView, ownedBy, scopeKey, withinTeam } from '../../lib/scope.js';
import { statsCache } from '../../lib/stats-cache.js';
import type { AuthContext } from '../../lib/identity.js';

const counted = (total: unknown, active: unknown) => {
  const t = Number(total);
  const a = Number(active);
  return { total: t, active: a, inactive: t - a };
};

const cache = statsCache<Result<'getActorStats'>>('actors', 'transports');

/**
 * Family counts from the counters the database keeps per role, organization and active flag, then
 * the top customers by their transports. A team manager's agents and top customers are limited to their organization subtree.
 * The answer is reused per scope while no counted actor or transport column changes (statsCache).
 */
export function actorStats(db: Kysely<Database>, auth: AuthContext, days: number, top: number): Promise<Result<'getActorStats'>> {
  return cache(db, `${scopeKey(auth)}|${days}|${top}`, () => computeStats(db, auth, days, top));
}

/**
 * Every customer's transports are counted by the database as they are written
 * (`actors.transports_count`, migration 0007, plus the changes appended since and not folded yet,
 * migration 0016). With a global view the top customers are an index read of the folded counts:
 * the customers with pending changes, plus as many more of the folded ranking as there are of them,
 * hold the exact top (a customer outside both has its folded count, and at least `top` customers
 * without pending changes rank above it). A team's top customers are grouped from the team's
 * transports (index on creator and customer).
 */
export function topCustomersQuery(db: Kysely<Database>, auth: AuthContext, top: number) {
  if (hasGlobalView(auth)) {
    return db
      .with('pending', (qb) =>
        qb
          .selectFrom('counter_deltas as d')
          .where('d.counter', '=', sql.lit('actors.transports_count'))
          .groupBy('d.id')
          .select(['d.id', sql<number>`sum(d.delta)::int`.as('n')]),
      )
      .with('candidates', (qb) =>
        qb
          .selectFrom((eb) =>
            eb
              .selectFrom('actors as a')
              .where('a.actor_role', '=', 'CUSTOMER')
              .where('a.transports_count', '>', 0)
              .select('a.id')
              .orderBy('a.transports_count', 'desc')
              .orderBy('a.id', 'asc')
              .limit(sql<number>`${top} + (select count(*) from pending)`)
              .as('ranked'),
          )
          .select('ranked.id')
          .union(qb.selectFrom('pending').select('pending.id')),
      )
      .selectFrom('candidates as c')
      .innerJoin('actors as a', 'a.id', 'c.id')
      .leftJoin('pending as p', 'p.id', 'a.id')
      .where('a.actor_role', '=', 'CUSTOMER')
      .where(sql<number>`a.transports_count + coalesce(p.n, 0)`, '>', 0)
      .select(['a.id', 'a.first_name', 'a.last_name', sql<number>`(a.transports_count + coalesce(p.n, 0))::int`.as('transports')])
      .orderBy('transports', 'desc')
      .orderBy('a.id', 'asc')
      .limit(top);
  }
  // The team's transports are grouped first (an index-only range per member), then their customers read by id.
  const counts = db
    .selectFrom('transports as t')
    .where(ownedBy(auth, 't.created_by'))
    .where('t.customer_id', 'is not', null)
    .groupBy('t.customer_id')
    .select((eb) => ['t.customer_id', eb.fn.countAll<number>().as('n')]);
  return db
    .selectFrom(counts.as('c'))
    .innerJoin('actors as a', 'a.id', 'c.customer_id')
    .where('a.actor_role', '=', 'CUSTOMER')
    .select(['a.id', 'a.first_name', 'a.last_name', 'c.n as transports'])
    .orderBy('c.n', 'desc')
    .orderBy('a.id', 'asc')
    .limit(top);
}

async function computeStats(db: Kysely<Database>, auth: AuthContext, days: number, top: number): Promise<Result<'getActorStats'>> {
  // Counters per role, organization and active flag (actor_counts, migration 0009); the new
  // customers are an index range on (actor_role, created_at).
  const agents = withinTeam(auth, 'x.organization_id');
  const sum = (condition: RawBuilder<unknown>) => sql<number>`coalesce(sum(x.actors) filter (where ${condition}), 0)`;
  const row = await db
    .selectFrom('actor_counts as x')
    .select([
      sum(sql`x.actor_role = 'ADMIN'`).as('admins'),
      sum(sql`x.actor_role = 'ADMIN' and x.is_active`).as('admins_active'),
      sum(sql`x.actor_role = 'AGENT' and ${agents}`).as('agents'),
      sum(sql`x.actor_role = 'AGENT' and x.is_active and ${agents}`).as('agents_active'),
      sum(sql`x.actor_role = 'CUSTOMER'`).as('customers'),
      sum(sql`x.actor_role = 'CUSTOMER' and x.is_active`).as('customers_active'),
      sql<number>`(select count(*) from actors a
        where a.actor_role = 'CUSTOMER' and a.created_at >= now() - make_interval(days => ${days}::int))`.as('new_customers'),
    ])
    .executeTakeFirstOrThrow();

  const customers = await topCustomersQuery(db, auth, top).execute();

  return {
    admins: counted(row.admins, row.admins_active),
    agents: counted(row.agents, row.agents_active),
    customers: counted(row.customers, row.customers_active),
    newCustomers: { days, count: Number(row.new_customers) },
    topCustomers: customers.map((c) => ({
      id: c.id,
      firstName: c.first_name,
      lastName: c.last_name,
      transportsCount: Number(c.transports),
    })),
  };
}
