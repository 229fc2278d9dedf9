import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Result } from '../../http/handlers.js';
import { ownedBy, withinTeam } from '../../lib/scope.js';
import type { AuthContext } from '../../plugins/security.js';

const counted = (total: unknown, active: unknown) => {
  const t = Number(total);
  const a = Number(active);
  return { total: t, active: a, inactive: t - a };
};

/**
 * Family counts in one pass over actors (grouped by filters), then the top customers by their
 * transports. A team manager's agents and top customers are limited to their organization subtree.
 */
export async function actorStats(db: Kysely<Database>, auth: AuthContext, days: number, top: number): Promise<Result<'getActorStats'>> {
  const agents = withinTeam(auth, 'a.organization_id');
  const row = await db
    .selectFrom('actors as a')
    .select([
      sql<number>`count(*) filter (where a.actor_role = 'ADMIN')`.as('admins'),
      sql<number>`count(*) filter (where a.actor_role = 'ADMIN' and a.is_active)`.as('admins_active'),
      sql<number>`count(*) filter (where a.actor_role = 'AGENT' and ${agents})`.as('agents'),
      sql<number>`count(*) filter (where a.actor_role = 'AGENT' and a.is_active and ${agents})`.as('agents_active'),
      sql<number>`count(*) filter (where a.actor_role = 'CUSTOMER')`.as('customers'),
      sql<number>`count(*) filter (where a.actor_role = 'CUSTOMER' and a.is_active)`.as('customers_active'),
      sql<number>`count(*) filter (where a.actor_role = 'CUSTOMER' and a.created_at >= now() - make_interval(days => ${days}::int))`.as(
        'new_customers',
      ),
    ])
    .executeTakeFirstOrThrow();

  const topCustomers = await db
    .selectFrom('actors as a')
    .innerJoin('transports as t', 't.customer_id', 'a.id')
    .where('a.actor_role', '=', 'CUSTOMER')
    .where(ownedBy(auth, 't.created_by'))
    .groupBy(['a.id', 'a.first_name', 'a.last_name'])
    .select((eb) => ['a.id', 'a.first_name', 'a.last_name', eb.fn.countAll<number>().as('transports')])
    .orderBy('transports', 'desc')
    .orderBy('a.id', 'asc')
    .limit(top)
    .execute();

  return {
    admins: counted(row.admins, row.admins_active),
    agents: counted(row.agents, row.agents_active),
    customers: counted(row.customers, row.customers_active),
    newCustomers: { days, count: Number(row.new_customers) },
    topCustomers: topCustomers.map((c) => ({
      id: c.id,
      firstName: c.first_name,
      lastName: c.last_name,
      transportsCount: Number(c.transports),
    })),
  };
}
