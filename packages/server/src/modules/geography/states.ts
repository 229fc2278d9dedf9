import { notFound } from '../../lib/errors.js';
import type { Req } from '../../http/handlers.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { countryExists, findState, listStates, toState } from './repository.js';

type Db = Parameters<typeof countryExists>[0];

async function checkCountry(db: Db, countryId: number | undefined): Promise<void> {
  // An inactive country is accepted: a country can be prepared before it is activated.
  if (countryId !== undefined && !(await countryExists(db, countryId))) throw notFound.resource('country', countryId);
}

export const states = configListHandlers({
  table: 'states',
  resource: 'state',
  label: 'State',
  plural: 'States',
  list: listStates,
  toResult: toState,
  find: findState,
  toInsert: (body: Req<'createConfigState'>['body']) => ({ country_id: body.countryId, code: body.code, name: body.name }),
  toUpdate: (patch: Req<'updateConfigState'>['body']) => ({ country_id: patch.countryId, code: patch.code, name: patch.name }),
  unique: [uniqueField('states_country_code_key', 'code', 'A state with this code already exists in this country')],
  // No table refers to states yet; a future reference answers as the contract declares.
  usage: async () => 0,
  inUseMessage: 'State is referenced by other records',
  // A country deleted between the check and the write.
  referenceError: (input) => notFound.resource('country', input.countryId ?? 0),
  checkCreate: (trx, body) => checkCountry(trx, body.countryId),
  checkUpdate: (trx, _state, patch) => checkCountry(trx, patch.countryId),
});
