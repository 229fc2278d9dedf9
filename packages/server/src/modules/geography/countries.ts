import type { Req } from '../../http/handlers.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { countryUsage, findCountry, listCountries, toCountry } from './repository.js';

export const countries = configListHandlers({
  table: 'countries',
  resource: 'country',
  label: 'Country',
  plural: 'Countries',
  list: listCountries,
  toResult: toCountry,
  find: findCountry,
  toInsert: (body: Req<'createConfigCountry'>['body']) => ({ code: body.code, name: body.name }),
  toUpdate: (patch: Req<'updateConfigCountry'>['body']) => ({ code: patch.code, name: patch.name }),
  unique: [uniqueField('countries_code_key', 'code', 'A country with this code already exists')],
  usage: countryUsage,
  inUseMessage: 'Country is referenced by states, users, organizations or complaints',
});
