import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { idsOf } from '../../support/fixtures.js';
import { actorIdOf, organizationId } from '../actors/fixtures.js';

// Moving Team Beta changes every team scope: this file holds only that scenario.
const t = useTestApp();

describe('the organization tree drives team scope', () => {
  it('shows the manager of Team Alpha agent2 once Team Beta is moved under Team Alpha', async () => {
    const alpha = await organizationId(t, 'TOG-FRN-ALPHA');
    const beta = await organizationId(t, 'TOG-FRN-BETA');
    const agent = await actorIdOf(t, 'agent');
    const agent2 = await actorIdOf(t, 'agent2');
    const manager = await t.token('manager');
    const listIds = async () => {
      const res = await t.call('listAgents', { token: manager, query: { limit: 100 } });
      expect(res.status).toBe(200);
      return idsOf(res);
    };

    // Before: Team Alpha only.
    expect(await listIds()).toContain(agent);
    expect(await listIds()).not.toContain(agent2);
    expect((await t.call('getAgentById', { token: manager, params: { id: agent } })).status).toBe(200);
    expect((await t.call('getAgentById', { token: manager, params: { id: agent2 } })).status).toBe(404);
    expect((await t.call('getOrganizationById', { token: manager, params: { id: beta } })).status).toBe(404);
    // Team statistics are cached (lib/stats-cache.ts): computed now, they must not survive the move.
    const teamAgents = async (organizations: number[]) =>
      (
        await t.db
          .selectFrom('actors')
          .select('id')
          .where('actor_role', '=', 'AGENT')
          .where('organization_id', 'in', organizations)
          .execute()
      ).length;
    const teamTransports = async (organizations: number[]) =>
      Number(
        (
          await t.db
            .selectFrom('transports as x')
            .innerJoin('users as u', 'u.id', 'x.created_by')
            .where('u.organization_id', 'in', organizations)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const statsBefore = await t.call('getActorStats', { token: manager });
    expect(statsBefore.body.result.agents.total).toBe(await teamAgents([alpha]));
    const transportsBefore = await t.call('getTransportStats', { token: manager });
    expect(transportsBefore.body.result.total).toBe(await teamTransports([alpha]));
    // The scenario is meaningful only if Team Beta brings agents and transports of its own.
    expect(await teamAgents([alpha, beta])).toBeGreaterThan(await teamAgents([alpha]));
    expect(await teamTransports([alpha, beta])).toBeGreaterThan(await teamTransports([alpha]));

    const moved = await t.call('updateOrganization', { token: await t.token('admin'), params: { id: beta }, body: { parentId: alpha } });
    expect(moved.status).toBe(200);
    expect(moved.body.result.parent).toEqual({ id: alpha, name: 'Team Alpha' });
    expect(moved.body.result.path.map((p: { name: string }) => p.name)).toEqual([
      'Transport Ops Group',
      'France North Region',
      'Team Alpha',
    ]);

    // After: the same token (its organization is Team Alpha) now reaches Team Beta's agents.
    expect(await listIds()).toEqual(expect.arrayContaining([agent, agent2]));
    const seen = await t.call('getAgentById', { token: manager, params: { id: agent2 } });
    expect(seen.status).toBe(200);
    expect(seen.body.result).toMatchObject({ id: agent2, lastName: 'El Idrissi', organization: { id: beta, name: 'Team Beta' } });
    const org = await t.call('getOrganizationById', { token: manager, params: { id: beta } });
    expect(org.status).toBe(200);
    const alphaDetail = await t.call('getOrganizationById', { token: manager, params: { id: alpha } });
    expect(alphaDetail.body.result.children).toEqual([{ id: beta, name: 'Team Beta', type: 'TEAM' }]);

    const stats = await t.call('getActorStats', { token: manager });
    expect(stats.body.result.agents.total).toBe(await teamAgents([alpha, beta]));
    const transports = await t.call('getTransportStats', { token: manager });
    expect(transports.body.result.total).toBe(await teamTransports([alpha, beta]));
  });
});
