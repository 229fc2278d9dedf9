import type { ModuleHandlers } from '../../http/handlers.js';
import { countryHandlers } from './countries.js';
import { stateHandlers } from './states.js';

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
> = { ...countryHandlers, ...stateHandlers };
