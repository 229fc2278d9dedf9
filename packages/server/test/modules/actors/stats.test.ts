import { liveCount } from '../../../src/lib/counters.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectRoleRefused } from '../../support/expect.js';
import { organizationId } from './fixtures.js';

const t = useTestApp();

/** Counts of one family straight from the table, optionally of some organizations only. */
async function family(role: 'ADMIN' | 'AGENT' | 'CUSTOMER', organizations?: number[]) {
  let query = t.db.selectFrom('actors').select(['is_active']).where('actor_role', '=', role);
  if (organizations) query = query.where('organization_id', 'in', organizations);
  const rows = await query.execute();
  const active = rows.filter((r) => r.is_active).length;
  return { total: rows.length, active, inactive: rows.length - active };
}

describe('GET /admin/actors/stats (getActorStats)', () => {
  it('counts every family, recent customers and the top customers for a supervisor', async () => {
    // One inactive customer and one new one, so that every counter has something to count.
    const supervisor = await t.token('supervisor');
    const created = await t.call('createCustomer', {
      token: supervisor,
      body: { firstName: 'New', lastName: 'Customer', phone: '+33700000001' },
    });
    await t.call('deactivateCustomer', { token: supervisor, params: { id: created.body.result.id } });

    const res = await t.call('getActorStats', { token: supervisor, query: { days: 30, top: 3 } });
    expect(res.status).toBe(200);
    const stats = res.body.result;
    expect(stats.admins).toEqual(await family('ADMIN'));
    expect(stats.agents).toEqual(await family('AGENT'));
    expect(stats.customers).toEqual(await family('CUSTOMER'));
    expect(stats.customers.inactive).toBeGreaterThanOrEqual(1);

    const recent = await t.db
      .selectFrom('actors')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('actor_role', '=', 'CUSTOMER')
      .where('created_at', '>=', new Date(Date.now() - 30 * 86_400_000))
      .executeTakeFirstOrThrow();
    expect(stats.newCustomers).toEqual({ days: 30, count: recent.n });

    const top = await t.db
      .selectFrom('transports as tr')
      .innerJoin('actors as a', 'a.id', 'tr.customer_id')
      .groupBy(['a.id', 'a.first_name', 'a.last_name'])
      .select(['a.id', 'a.first_name as firstName', 'a.last_name as lastName', sql<number>`count(*)::int`.as('transportsCount')])
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('a.id')
      .limit(3)
      .execute();
    expect(top.length).toBeGreaterThan(0);
    expect(stats.topCustomers).toEqual(top);
  });

  it("limits a team manager's agents and top customers to their organization subtree", async () => {
    const alpha = await organizationId(t, 'TOG-FRN-ALPHA');
    const res = await t.call('getActorStats', { token: await t.token('manager') });
    expect(res.status).toBe(200);
    const stats = res.body.result;
    expect(stats.agents).toEqual(await family('AGENT', [alpha]));
    expect(stats.admins).toEqual(await family('ADMIN'));
    expect(stats.newCustomers.days).toBe(30);

    const top = await t.db
      .selectFrom('transports as tr')
      .innerJoin('users as u', 'u.id', 'tr.created_by')
      .innerJoin('actors as a', 'a.id', 'tr.customer_id')
      .where('u.organization_id', '=', alpha)
      .groupBy(['a.id', 'a.first_name', 'a.last_name'])
      .select(['a.id', 'a.first_name as firstName', 'a.last_name as lastName', sql<number>`count(*)::int`.as('transportsCount')])
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('a.id')
      .limit(5)
      .execute();
    expect(stats.topCustomers).toEqual(top);
  });

  it("keeps each customer's transports count equal to a recount through new, reassigned and deleted transports", async () => {
    const customers = await t.db.selectFrom('actors').select('id').where('actor_role', '=', 'CUSTOMER').orderBy('id').limit(2).execute();
    const [first, second] = [customers[0]!.id, customers[1]!.id];
    const copy = (customer: number | null) =>
      sql<{
        id: number;
      }>`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, product_label, customer_id, created_by)
        select charger_first_name, charger_last_name, vehicle_type_id, loading_point, product_label, ${customer}, created_by from transports order by id limit 1
        returning id`.execute(t.db);
    const a = (await copy(first)).rows[0]!.id;
    const b = (await copy(null)).rows[0]!.id;
    await t.db.updateTable('transports').set({ customer_id: second }).where('id', '=', a).execute();
    await t.db.updateTable('transports').set({ customer_id: first }).where('id', '=', b).execute();
    await t.db.updateTable('transports').set({ product_label: 'Renamed' }).where('id', '=', b).execute();
    const c = (await copy(second)).rows[0]!.id;
    await t.db.deleteFrom('transports').where('id', 'in', [a, c]).execute();

    // The folded column plus the changes appended since (migration 0016), then the column alone once folded.
    const drift = () =>
      sql<{ id: number }>`select a.id from actors a
        where ${liveCount('actors.transports_count', 'a')} <> (select count(*) from transports t where t.customer_id = a.id)`.execute(t.db);
    expect((await drift()).rows).toEqual([]);
    expect(await t.app.foldStatisticsOnce()).toBeGreaterThan(0);
    expect((await drift()).rows).toEqual([]);
    const pending = await t.db.selectFrom('counter_deltas').select('id').execute();
    expect(pending).toEqual([]);
    const counts = await t.db.selectFrom('actors').select(['id', 'transports_count']).where('id', 'in', [first, second]).execute();
    expect(counts.every((r) => r.transports_count > 0)).toBe(true);
  });

  it('refuses days out of range with 400 and an agent with 403', async () => {
    expectInvalid(await t.call('getActorStats', { token: await t.token('admin'), query: { days: 0 } }), 'querystring/days must be >= 1');
    expectInvalid(await t.call('getActorStats', { token: await t.token('admin'), query: { top: 51 } }), 'querystring/top must be <= 50');
    expectRoleRefused(await t.call('getActorStats', { token: await t.token('agent') }), 'getActorStats');
  });
});
