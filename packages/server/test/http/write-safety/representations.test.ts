import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../../src/http/handlers.js';
import { writePolicies } from '../../../src/http/write-safety/policy.js';
import { superAdmin } from '../../modules/actors/fixtures.js';
import { fileComplaint, loadRefs as complaintRefs } from '../../modules/complaints/fixtures.js';
import { newMessage, newTopic } from '../../modules/forum/helpers.js';
import { createTransport, loadRefs as transportRefs } from '../../modules/transports/fixtures.js';
import { type TestApp, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';

/*
 * Every resource that conditional writes change: the ETag its GET sends is the one the write's
 * precondition computes from the resource's registered representation (no request to itself).
 * For each, a write that would succeed is applied with `*` (the resource's main row, as its kind
 * names it, exists), refused with a stale tag (412, the GET's tag unchanged afterwards) and
 * applied with the tag the GET sent.
 */

const t = useTestApp();

interface Case {
  /** The resource's GET, the caller and the path parameters. */
  get: OperationId;
  write: OperationId;
  user: () => Promise<string>;
  setup: () => Promise<{ params: Record<string, number>; body?: Record<string, unknown> }>;
}

const token = (user: Parameters<TestApp['token']>[0]) => () => t.token(user);
let root: Promise<string> | undefined;
const rootToken = () => (root ??= superAdmin(t).then((a) => a.token));

const firstId = async (op: OperationId, user: () => Promise<string>) => {
  const res = await t.call(op, { token: await user() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const result = res.body.result as { data?: { id: number }[] } | { id: number }[];
  return (Array.isArray(result) ? result : result.data!)[0]!.id;
};

const userId = async (username: string) =>
  (await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

const transport = async () => (await createTransport(t, await transportRefs(t), 'agent')).id;
const complaint = async () => (await fileComplaint(t, await complaintRefs(t), 'agent')).id;

const configCase = (singular: string, plural: string, user: () => Promise<string>): Case => ({
  get: `getConfig${singular}ById` as OperationId,
  write: `setConfig${singular}Status` as OperationId,
  user,
  setup: async () => ({ params: { id: await firstId(`listConfig${plural}` as OperationId, user) }, body: { isActive: true } }),
});

const cases: Case[] = [
  {
    get: 'getTransportById',
    write: 'updateTransport',
    user: token('agent'),
    setup: async () => ({ params: { id: await transport() }, body: { productQuantity: 26 } }),
  },
  {
    get: 'getAdminTransportById',
    write: 'updateAdminTransport',
    user: token('admin'),
    setup: async () => ({ params: { id: await transport() }, body: { chargerPhone: '+33 6 70 88 14 02' } }),
  },
  {
    get: 'getComplaintById',
    write: 'updateComplaint',
    user: token('agent'),
    setup: async () => ({ params: { id: await complaint() }, body: { timeLost: 240 } }),
  },
  {
    get: 'getAdminComplaintById',
    write: 'updateAdminComplaint',
    user: token('admin'),
    setup: async () => ({ params: { id: await complaint() }, body: { timeLost: 320 } }),
  },
  { get: 'getProfile', write: 'updateBio', user: token('manager'), setup: async () => ({ params: {}, body: { bio: 'Team Alpha lead' } }) },
  {
    get: 'getForumTopicById',
    write: 'subscribeForumTopic',
    user: token('agent2'),
    setup: async () => ({ params: { id: (await newTopic(t, await t.token('agent'))).id } }),
  },
  {
    get: 'getForumMessageById',
    write: 'updateForumMessage',
    user: token('agent'),
    setup: async () => {
      const topic = await newTopic(t, await t.token('agent'));
      return { params: { id: (await newMessage(t, await t.token('agent'), topic.id)).id }, body: { content: 'An edited message.' } };
    },
  },
  {
    get: 'getAdminById',
    write: 'updateAdmin',
    user: rootToken,
    setup: async () => ({ params: { id: await firstId('listAdmins', rootToken) }, body: { address: 'Tour BIAO, Plateau, Abidjan' } }),
  },
  {
    get: 'getAgentById',
    write: 'updateAgent',
    user: token('admin'),
    setup: async () => ({ params: { id: await firstId('listAgents', token('admin')) }, body: { phone: '+2250708445599' } }),
  },
  {
    get: 'getCustomerById',
    write: 'updateCustomer',
    user: token('admin'),
    setup: async () => ({ params: { id: await firstId('listCustomers', token('admin')) }, body: { phone: '+2250102030499' } }),
  },
  {
    get: 'getUserById',
    write: 'updateUser',
    user: token('admin'),
    setup: async () => ({ params: { id: await userId('agent2') }, body: { firstName: 'Awa' } }),
  },
  {
    get: 'getSessionById',
    write: 'revokeSession',
    user: token('admin'),
    setup: async () => {
      await t.call('login', { body: { username: 'agent2', password: 'demo1234' } });
      const row = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', await userId('agent2'))
        .where('revoked_at', 'is', null)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return { params: { id: row.id } };
    },
  },
  {
    get: 'getOrganizationById',
    write: 'updateOrganization',
    user: token('admin'),
    setup: async () => ({ params: { id: await firstId('listOrganizations', token('admin')) }, body: { isActive: true } }),
  },
  configCase('Category', 'Categories', token('supervisor')),
  configCase('ComplaintType', 'ComplaintTypes', token('supervisor')),
  configCase('Role', 'Roles', rootToken),
  configCase('Tag', 'Tags', token('supervisor')),
  configCase('VehicleType', 'VehicleTypes', token('supervisor')),
  configCase('Country', 'Countries', token('supervisor')),
  configCase('State', 'States', token('supervisor')),
  {
    get: 'getAdminAnnouncementById',
    write: 'updateAnnouncement',
    user: token('admin'),
    setup: async () => ({
      params: { id: await firstId('listAdminAnnouncements', token('admin')) },
      body: { summary: 'An edited summary' },
    }),
  },
  {
    get: 'getAdminTutorialById',
    write: 'updateTutorial',
    user: token('admin'),
    setup: async () => ({ params: { id: await firstId('listAdminTutorials', token('admin')) }, body: { estimatedTime: 80 } }),
  },
  {
    get: 'getWebhook',
    write: 'updateWebhook',
    user: token('admin'),
    setup: async () => {
      const created = await t.call('createWebhook', {
        token: await t.token('admin'),
        body: { url: 'http://127.0.0.1:9/representation-hook', eventTypes: ['transport.created'] },
      });
      expect(created.status).toBe(201);
      return { params: { id: created.body.result.id }, body: { isActive: true } };
    },
  },
];

describe('the representation of every conditional resource', () => {
  it('covers every resource GET that a conditional write names', () => {
    const gets = new Set<string>();
    for (const policy of writePolicies().values()) if (policy.conditional) gets.add(policy.conditional.get);
    expect(cases.map((c) => c.get).sort()).toEqual([...gets].sort());
  });

  let prepared: Map<OperationId, Awaited<ReturnType<Case['setup']>>>;
  beforeAll(async () => {
    prepared = new Map();
    for (const c of cases) prepared.set(c.get, await c.setup());
  });

  it.each(cases.map((c) => [c.get, c] as const))(
    '%s: * applies the write, a stale tag is 412 and changes nothing, the GET’s tag applies the write',
    async (_, c) => {
      const { params, body } = prepared.get(c.get)!;
      const callerToken = await c.user();
      const read = () => t.call(c.get, { token: callerToken, params } as never);
      const write = (ifMatch: string) => t.call(c.write, { token: callerToken, params, body, headers: { 'if-match': ifMatch } } as never);
      // `*` checks only that the resource's registered main row exists (locked, nothing read).
      const any = await write('*');
      expect(any.status, `If-Match: * ${JSON.stringify(any.body)}`).toBe(200);
      const first = await read();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);

      const stale = await write('"AAAAAAAAAAAAAAAAAAAAAA"');
      expectError(stale, 412, 'PRECONDITION_FAILED');
      const after = await read();
      expect(after.headers.etag, 'the refused write changed nothing').toBe(etag);

      const applied = await write(etag);
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    },
  );
});
