import type { OperationId } from '../../../src/http/handlers.js';
import type { TestApp } from '../../support/app.js';
import { createUser } from '../users/support.js';

/** Who may write a list: supervisors and above, or super administrators only. */
export type Writer = 'supervisor' | 'root';

/** One configuration list, as the shared suite exercises it. */
export interface ConfigCase {
  name: string;
  resource: string;
  ops: { list: OperationId; create: OperationId; get: OperationId; update: OperationId; remove: OperationId; status: OperationId };
  writer: Writer;
  deleter: 'admin' | 'root';
  /** The field that must be unique, and whether its comparison ignores case. */
  key: 'name' | 'code';
  caseInsensitive: boolean;
  /** A valid creation body whose key derives from `seed` (unique per call). */
  body(t: TestApp, seed: string): Promise<Record<string, unknown>>;
  /** An entry that records refer to, with the number of them the delete must report (at least). */
  inUse?(t: TestApp, create: (seed: string) => Promise<{ id: number }>): Promise<{ id: number; usageCount: number }>;
}

let sequence = 0;
const upper = (seed: string) => seed.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** The seeded entry with the highest count in `field` of the list's items. */
async function mostUsed(t: TestApp, token: string, op: OperationId, field: string): Promise<{ id: number; usageCount: number }> {
  const res = await t.call(op, { token, query: { limit: 100 } });
  const items = res.body.result.data as Record<string, number>[];
  const top = items.reduce((a, b) => (b[field]! > a[field]! ? b : a));
  return { id: top.id!, usageCount: top[field]! };
}

const ops = (plural: string, singular: string): ConfigCase['ops'] => ({
  list: `listConfig${plural}` as OperationId,
  create: `createConfig${singular}` as OperationId,
  get: `getConfig${singular}ById` as OperationId,
  update: `updateConfig${singular}` as OperationId,
  remove: `deleteConfig${singular}` as OperationId,
  status: `setConfig${singular}Status` as OperationId,
});

export const cases: ConfigCase[] = [
  {
    name: 'categories',
    resource: 'category',
    ops: ops('Categories', 'Category'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'name',
    caseInsensitive: true,
    body: async (_t, seed) => ({ scope: 'FORUM', name: `Category ${seed}`, description: 'Routes and schedules' }),
    inUse: async (t) => mostUsed(t, await t.token('supervisor'), 'listConfigCategories', 'usageCount'),
  },
  {
    name: 'tags',
    resource: 'tag',
    ops: ops('Tags', 'Tag'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'name',
    caseInsensitive: true,
    body: async (_t, seed) => ({ name: `tag-${seed}`, color: '#00ACC1' }),
    inUse: async (t) => mostUsed(t, await t.token('supervisor'), 'listConfigTags', 'usageCount'),
  },
  {
    name: 'vehicle types',
    resource: 'vehicle_type',
    ops: ops('VehicleTypes', 'VehicleType'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'name',
    caseInsensitive: true,
    body: async (_t, seed) => ({ name: `Reefer ${seed}`, description: 'Refrigerated trailer', maxWeight: 24, category: 'HEAVY' }),
    inUse: async (t) => mostUsed(t, await t.token('supervisor'), 'listConfigVehicleTypes', 'usageCount'),
  },
  {
    name: 'complaint types',
    resource: 'complaintType',
    ops: ops('ComplaintTypes', 'ComplaintType'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'name',
    caseInsensitive: true,
    body: async (_t, seed) => ({ name: `Late delivery ${seed}`, description: 'Goods arrived after the agreed time' }),
    inUse: async (t) => mostUsed(t, await t.token('supervisor'), 'listConfigComplaintTypes', 'usageCount'),
  },
  {
    name: 'roles',
    resource: 'role',
    ops: ops('Roles', 'Role'),
    writer: 'root',
    deleter: 'root',
    key: 'code',
    caseInsensitive: false,
    body: async (_t, seed) => ({ code: `DESK_${upper(seed)}`, name: 'Dispatch desk', description: 'Custom role', accessLevel: 'agent' }),
    async inUse(t, create) {
      const role = await create(`held${++sequence}`);
      await createUser(t, { roleId: role.id });
      await createUser(t, { roleId: role.id });
      return { id: role.id, usageCount: 2 };
    },
  },
  {
    name: 'countries',
    resource: 'country',
    ops: ops('Countries', 'Country'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'code',
    caseInsensitive: false,
    // Two letters: the seed is folded into the unused part of the alphabet space.
    body: async (_t, seed) => ({ code: twoLetters(seed), name: `Country ${seed}` }),
    inUse: async (t) => mostUsed(t, await t.token('supervisor'), 'listConfigCountries', 'statesCount'),
  },
  {
    name: 'states',
    resource: 'state',
    ops: ops('States', 'State'),
    writer: 'supervisor',
    deleter: 'admin',
    key: 'code',
    caseInsensitive: false,
    async body(t, seed) {
      const fr = await t.db.selectFrom('countries').select('id').where('code', '=', 'FR').executeTakeFirstOrThrow();
      return { countryId: fr.id, code: `S${upper(seed)}`.slice(0, 10), name: `State ${seed}` };
    },
  },
];

const used = new Set<string>();
/** A country code no seed uses: Q and X start no ISO 3166 code. */
function twoLetters(seed: string): string {
  const letters = 'ABCDEFGHIJKLMNOPRSTUVWYZ';
  let n = [...seed].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 48, 7);
  for (;;) {
    const code = `${n < 24 ? 'Q' : 'X'}${letters[n % 24]}`;
    if (!used.has(code)) {
      used.add(code);
      return code;
    }
    n = (n + 1) % 48;
  }
}
