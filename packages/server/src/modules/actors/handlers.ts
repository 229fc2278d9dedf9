import type { ModuleHandlers } from '../../http/handlers.js';
import { caller } from '../../lib/identity.js';
import { familyHandlers } from './family.js';
import { toActor, toCustomer } from './mappers.js';
import { actorStats } from './stats-repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

const admins = familyHandlers({
  role: 'ADMIN',
  label: 'Admin',
  noun: 'administrator',
  accountLevels: ['admin', 'super_admin'],
  teamScoped: false,
  needsContact: false,
  inUseMessage: 'Admin is linked to a user account',
  toResult: toActor,
});

const agents = familyHandlers({
  role: 'AGENT',
  label: 'Agent',
  noun: 'agent',
  accountLevels: ['agent', 'team_manager', 'supervisor'],
  teamScoped: true,
  needsContact: false,
  inUseMessage: 'Agent is linked to a user account',
  toResult: toActor,
});

const customers = familyHandlers({
  role: 'CUSTOMER',
  label: 'Customer',
  noun: 'customer',
  accountLevels: [],
  teamScoped: false,
  needsContact: true,
  inUseMessage: 'Customer is referenced by transports or complaints',
  toResult: toCustomer,
});

type ActorOperation =
  | 'listAdmins'
  | 'createAdmin'
  | 'getAdminById'
  | 'updateAdmin'
  | 'deleteAdmin'
  | 'activateAdmin'
  | 'deactivateAdmin'
  | 'bulkActionAdmins'
  | 'listAgents'
  | 'createAgent'
  | 'getAgentById'
  | 'updateAgent'
  | 'deleteAgent'
  | 'activateAgent'
  | 'deactivateAgent'
  | 'bulkActionAgents'
  | 'listCustomers'
  | 'createCustomer'
  | 'getCustomerById'
  | 'updateCustomer'
  | 'deleteCustomer'
  | 'activateCustomer'
  | 'deactivateCustomer'
  | 'bulkActionCustomers'
  | 'getActorStats';

export const actorHandlers: ModuleHandlers<ActorOperation> = {
  listAdmins: admins.list,
  createAdmin: admins.create,
  getAdminById: admins.get,
  updateAdmin: admins.update,
  deleteAdmin: admins.remove,
  activateAdmin: admins.activate,
  deactivateAdmin: admins.deactivate,
  bulkActionAdmins: admins.bulk,

  listAgents: agents.list,
  createAgent: agents.create,
  getAgentById: agents.get,
  updateAgent: agents.update,
  deleteAgent: agents.remove,
  activateAgent: agents.activate,
  deactivateAgent: agents.deactivate,
  bulkActionAgents: agents.bulk,

  listCustomers: customers.list,
  createCustomer: customers.create,
  getCustomerById: customers.get,
  updateCustomer: customers.update,
  deleteCustomer: customers.remove,
  activateCustomer: customers.activate,
  deactivateCustomer: customers.deactivate,
  bulkActionCustomers: customers.bulk,

  async getActorStats(req) {
    const { days = 30, top = 5 } = req.query;
    return { message: 'Actor statistics retrieved', result: await actorStats(req.server.db, caller(req), days, top) };
  },
};

/** The representations of the actors (write-safety/representations.ts). */
export const actorRepresentations: ModuleRepresentations<'getAdminById' | 'getAgentById' | 'getCustomerById'> = {
  getAdminById: admins.representation,
  getAgentById: agents.representation,
  getCustomerById: customers.representation,
};
