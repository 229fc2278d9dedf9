/** The requests `pnpm bench` measures: every list and statistics endpoint with filters, searches, sorts, deep pages and each role. */
export type Role = 'anonymous' | 'agent' | 'manager' | 'supervisor' | 'admin' | 'busy';

export interface Scenario {
  name: string;
  role: Role;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  /** Request headers; `[<id>]` in a value becomes a new UUID per request (autocannon's idReplacement). */
  headers?: Record<string, string>;
  /** Counted in the flat-latency target (lists and statistics). */
  list: boolean;
  /** Side effects or password hashing: no bare replay. */
  noReplay?: boolean;
}

/**
 * Users of the generated data: the demo accounts, the busiest generated agent, and the agent of
 * `bench:data --busy-agent` (a fixed share of the transports and topics; absent without the option).
 */
export const USERS: Record<Exclude<Role, 'anonymous'>, string> = {
  agent: 'bench.agent1',
  manager: 'manager',
  supervisor: 'supervisor',
  admin: 'admin',
  busy: 'bench.busy',
};

export interface Context {
  transportId: number;
  /** A keyset cursor half-way through the supervisor's transports (newest first). */
  deepCursor: string;
  /** The forum topic with the most messages. */
  topicId: number;
  /** The busy agent's rare term (`bench:data --busy-agent`): in one of its transports and one topic; null without it. */
  rareTerm: string | null;
}

const list = (name: string, role: Role, path: string): Scenario => ({ name, role, method: 'GET', path, list: true });

export function scenarios(c: Context): Scenario[] {
  return [
    { name: 'health', role: 'anonymous', method: 'GET', path: '/health', list: false },
    {
      name: 'login',
      role: 'anonymous',
      method: 'POST',
      path: '/auth/login',
      body: { username: 'agent', password: 'demo1234' },
      list: false,
      noReplay: true,
    },
    list('transports, supervisor', 'supervisor', '/trade/transports'),
    list('transports, agent', 'agent', '/trade/transports'),
    list('transports, team manager', 'manager', '/trade/transports'),
    list('transports search common word', 'supervisor', '/trade/transports?search=lyon'),
    list('transports search no match', 'supervisor', '/trade/transports?search=zqxw'),
    list('transports sortBy=status', 'supervisor', '/trade/transports?sortBy=status'),
    list('transports sortBy=loadingNumber ASC', 'supervisor', '/trade/transports?sortBy=loadingNumber&sortOrder=ASC'),
    list(
      'transports status+date range',
      'supervisor',
      '/trade/transports?status=IN_PROGRESS&startDate=2026-01-01T00:00:00Z&endDate=2026-06-30T23:59:59Z',
    ),
    list('transports loadingPoint filter', 'agent', '/trade/transports?loadingPoint=marseille'),
    list('transports page=1000', 'supervisor', '/trade/transports?page=1000'),
    list('transports deep cursor', 'supervisor', `/trade/transports?cursor=${c.deepCursor}`),
    list('admin transports, team manager', 'manager', '/admin/transports'),
    list('admin transports, supervisor search', 'supervisor', '/admin/transports?search=steel&sortBy=status'),
    list('transport stats, supervisor', 'supervisor', '/admin/transports/stats'),
    list('transport stats, team manager', 'manager', '/admin/transports/stats'),
    list('admin complaints, supervisor', 'supervisor', '/admin/complaints'),
    list('admin complaints search', 'supervisor', '/admin/complaints?search=customs'),
    list('admin complaints sortBy=updatedAt', 'supervisor', '/admin/complaints?sortBy=updatedAt'),
    list('admin complaints, team manager', 'manager', '/admin/complaints?status=PENDING'),
    list('complaints, agent', 'agent', '/trade/complaints'),
    list('complaint stats, supervisor', 'supervisor', '/admin/complaints/stats'),
    list('forum topics', 'agent', '/trade/forum/topics'),
    list('forum topics page=1000', 'agent', '/trade/forum/topics?page=1000'),
    list('forum topics search', 'agent', '/trade/forum/topics?search=customs'),
    list('forum topics popularity', 'agent', '/trade/forum/topics?sortBy=popularity'),
    list('forum stats', 'supervisor', '/admin/forum/stats'),
    list('announcements, agent', 'agent', '/trade/announcements'),
    list('announcements search', 'agent', '/trade/announcements?search=customs'),
    list('admin announcements', 'admin', '/admin/announcements'),
    list('customers, admin', 'admin', '/admin/actors/customers'),
    list('customers search', 'admin', '/admin/actors/customers?search=lyon'),
    list('agents, supervisor', 'supervisor', '/admin/actors/agents'),
    list('actor stats', 'admin', '/admin/actors/stats'),
    list('actor stats, team manager', 'manager', '/admin/actors/stats?days=90&top=10'),
    list('transports vehicle type, sortBy=status ASC', 'supervisor', '/trade/transports?vehicleTypeId=1&sortBy=status&sortOrder=ASC'),
    list('transports unloadingPoint filter', 'manager', '/trade/transports?unloadingPoint=dakar'),
    list('transports search, agent', 'agent', '/trade/transports?search=steel'),
    list('admin transports pending since a date', 'supervisor', '/admin/transports?status=PENDING&startDate=2026-01-01T00:00:00Z'),
    list('transport stats, 90 days', 'supervisor', '/admin/transports/stats?days=90'),
    list('complaints, agent status filter', 'agent', '/trade/complaints?status=PENDING&sortBy=updatedAt'),
    list('admin complaints page=500', 'supervisor', '/admin/complaints?page=500'),
    list('complaint stats, team manager', 'manager', '/admin/complaints/stats?days=90'),
    list('report statistics, supervisor', 'supervisor', '/admin/reports/statistics'),
    list('report statistics, team manager', 'manager', '/admin/reports/statistics?startDate=2026-01-01T00:00:00Z'),
    list('forum topics closed', 'agent', '/trade/forum/topics?status=CLOSED'),
    list('forum topics most messages', 'supervisor', '/trade/forum/topics?sortBy=messages_count'),
    list('topic messages', 'agent', `/trade/forum/topics/${c.topicId}/messages`),
    list('forum tags', 'agent', '/trade/forum/tags'),
    list('my forum reports', 'agent', '/trade/forum/my-reports'),
    list('forum subscriptions', 'agent', '/trade/forum/subscriptions'),
    list('reported messages', 'supervisor', '/admin/forum/reported-messages'),
    list('announcements, high priority', 'agent', '/trade/announcements?priority=HIGH&page=2'),
    list('admin announcements search', 'admin', '/admin/announcements?search=customs&sortBy=title'),
    list('admins', 'admin', '/admin/actors/admins'),
    list('agents, team manager', 'manager', '/admin/actors/agents?isActive=true'),
    list('customers, team manager', 'manager', '/admin/actors/customers?sortBy=lastName'),
    list('customers page=1000', 'admin', '/admin/actors/customers?page=1000'),
    list('users, supervisor', 'supervisor', '/admin/users?sortBy=username'),
    list('users, team manager', 'manager', '/admin/users'),
    list('sessions', 'supervisor', '/admin/users/sessions'),
    list('organizations', 'supervisor', '/admin/organizations'),
    list('notifications', 'admin', '/admin/notifications'),
    list('tutorials', 'agent', '/trade/tutorials'),
    list('tutorials search', 'agent', '/trade/tutorials/search?q=customs'),
    list('admin tutorials', 'admin', '/admin/tutorials'),
    list('configuration: categories', 'supervisor', '/admin/configurations/categories?scope=FORUM'),
    list('configuration: vehicle types', 'supervisor', '/admin/configurations/vehicle-types'),
    list('tutorials sortBy=popular', 'agent', '/trade/tutorials?sortBy=popular'),
    list('tutorials sortBy=rating', 'agent', '/trade/tutorials?sortBy=rating'),
    list('admin tutorials sortBy=viewsCount', 'admin', '/admin/tutorials?sortBy=viewsCount'),
    list('admin tutorials sortBy=completionsCount', 'admin', '/admin/tutorials?sortBy=completionsCount'),
    list('admin tutorials sortBy=averageRating', 'admin', '/admin/tutorials?sortBy=averageRating'),
    list('admin announcements sortBy=likesCount', 'admin', '/admin/announcements?sortBy=likesCount'),
    list('admin announcements sortBy=viewsCount', 'admin', '/admin/announcements?sortBy=viewsCount'),
    // A busy agent (a fixed share of the transports and topics) searching for a term one of its rows holds.
    ...(c.rareTerm !== null
      ? [
          list('transports search rare term, busy agent', 'busy', `/trade/transports?search=${c.rareTerm}`),
          list('forum topics search rare term, busy agent', 'busy', `/trade/forum/topics?search=${c.rareTerm}`),
        ]
      : []),
    { name: 'transport detail', role: 'supervisor', method: 'GET', path: `/trade/transports/${c.transportId}`, list: false },
    // `If-None-Match: *` names any current representation: a 304 without a body.
    {
      name: 'transport detail, conditional (304)',
      role: 'supervisor',
      method: 'GET',
      path: `/trade/transports/${c.transportId}`,
      headers: { 'if-none-match': '*' },
      list: false,
      noReplay: true,
    },
    ...writeScenarios(),
  ];
}

const NEW_TRANSPORT = {
  chargerFirstName: 'Marc',
  chargerLastName: 'Dubois',
  vehicleTypeId: 1,
  loadingPoint: 'Lyon, port terminal',
  productLabel: 'Steel coils',
  productQuantity: 2,
  averageUnitPrice: 100,
};

/** Creating a transport without and with an idempotency key (a new one per request: each is claimed, run and stored). */
export function writeScenarios(): Scenario[] {
  const create = { role: 'agent', method: 'POST', path: '/trade/transports', body: NEW_TRANSPORT, list: false, noReplay: true } as const;
  return [
    Object.assign({ name: 'create transport' }, create),
    Object.assign({ name: 'create transport, idempotency key', headers: { 'idempotency-key': '[<id>]' } }, create),
  ];
}
