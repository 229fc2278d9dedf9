import type { ModuleHandlers, Req } from '../../http/handlers.js';
import { invalidateAnnouncementCaches } from '../announcements/cache.js';
import { configListHandlers, uniqueField } from '../config-lists/family.js';
import { DEFAULT_COLOR, findTag, listTags, tagUsage, toTag } from './repository.js';
import type { ModuleRepresentations } from '../../http/write-safety/representations.js';

const tags = configListHandlers({
  table: 'tags',
  resource: 'tag',
  label: 'Tag',
  plural: 'Tags',
  list: listTags,
  toResult: toTag,
  find: findTag,
  toInsert: (body: Req<'createConfigTag'>['body']) => ({
    name: body.name,
    color: body.color ?? DEFAULT_COLOR,
    is_active: body.isActive ?? true,
  }),
  toUpdate: (patch: Req<'updateConfigTag'>['body']) => ({ name: patch.name, color: patch.color }),
  unique: [uniqueField('tags_lower_name_key', 'name', 'A tag with this name already exists')],
  usage: tagUsage,
  inUseMessage: 'Tag is in use',
  // Announcement lists and details show tags; their caches must not outlive a change.
  afterChange: invalidateAnnouncementCaches,
});

export const tagHandlers: ModuleHandlers<
  'listConfigTags' | 'createConfigTag' | 'getConfigTagById' | 'updateConfigTag' | 'deleteConfigTag' | 'setConfigTagStatus'
> = {
  listConfigTags: tags.list,
  createConfigTag: tags.create,
  getConfigTagById: tags.get,
  updateConfigTag: tags.update,
  deleteConfigTag: tags.remove,
  setConfigTagStatus: tags.setStatus,
};

/** The representation of an entry (write-safety/representations.ts). */
export const tagsRepresentations: ModuleRepresentations<'getConfigTagById'> = { getConfigTagById: tags.representation };
