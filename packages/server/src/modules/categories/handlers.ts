import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { invalidateAnnouncementCaches } from '../announcements/cache.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { categoryUsage, DEFAULT_COLOR, DEFAULT_ICON, findCategory, listCategories, toCategory } from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

const categories = configListHandlers({
  table: 'categories',
  resource: 'category',
  label: 'Category',
  plural: 'Categories',
  list: listCategories,
  toResult: toCategory,
  find: findCategory,
  toInsert: (body: Req<'createConfigCategory'>['body']) => ({
    scope: body.scope,
    name: body.name,
    description: body.description ?? '',
    color: body.color ?? DEFAULT_COLOR,
    icon: body.icon ?? DEFAULT_ICON,
    is_active: body.isActive ?? true,
  }),
  toUpdate: (patch: Req<'updateConfigCategory'>['body']) => ({
    name: patch.name,
    description: patch.description,
    color: patch.color,
    icon: patch.icon,
  }),
  unique: [uniqueField('categories_scope_lower_name_key', 'name', 'A category with this name already exists in this scope')],
  usage: categoryUsage,
  inUseMessage: 'Category is in use',
  // Announcement lists and details show categories; their caches must not outlive a change.
  afterChange: invalidateAnnouncementCaches,
});

export const categoryHandlers: ModuleHandlers<
  | 'listConfigCategories'
  | 'createConfigCategory'
  | 'getConfigCategoryById'
  | 'updateConfigCategory'
  | 'deleteConfigCategory'
  | 'setConfigCategoryStatus'
> = {
  listConfigCategories: categories.list,
  createConfigCategory: categories.create,
  getConfigCategoryById: categories.get,
  updateConfigCategory: categories.update,
  deleteConfigCategory: categories.remove,
  setConfigCategoryStatus: categories.setStatus,
};

/** The representation of an entry (write-safety/representations.ts). */
export const categoriesRepresentations: ModuleRepresentations<'getConfigCategoryById'> = {
  getConfigCategoryById: categories.representation,
};
