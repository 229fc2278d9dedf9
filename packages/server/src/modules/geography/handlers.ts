import type { ModuleHandlers } from '../../http/handlers.js';
import { countries } from './countries.js';
import { states } from './states.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

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

/** The representations of countries and states (write-safety/representations.ts). */
export const geographyRepresentations: ModuleRepresentations<'getConfigCountryById' | 'getConfigStateById'> = {
  getConfigCountryById: countries.representation,
  getConfigStateById: states.representation,
};
