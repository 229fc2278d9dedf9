import type { ModuleHandlers } from '../../http/handlers.js';
import { countries } from './countries.js';
import { states } from './states.js';

export const geographyHandlers: ModuleHandlers<
  | 'listConfigCountries'
  | 'createConfigCountry'
  | 'getConfigCountryById'
  | 'updateConfigCountry'
  | 'deleteConfigCountry'
  | 'setConfigCountryStatus'
  | 'listConfigStates'
  | 'createConfigState'
  | 'getConfigStateById'
  | 'updateConfigState'
  | 'deleteConfigState'
  | 'setConfigStateStatus'
> = {
  listConfigCountries: countries.list,
  createConfigCountry: countries.create,
  getConfigCountryById: countries.get,
  updateConfigCountry: countries.update,
  deleteConfigCountry: countries.remove,
  setConfigCountryStatus: countries.setStatus,
  listConfigStates: states.list,
  createConfigState: states.create,
  getConfigStateById: states.get,
  updateConfigState: states.update,
  deleteConfigState: states.remove,
  setConfigStateStatus: states.setStatus,
};
