import type { Migration } from 'kysely';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_case_insensitive_names.js';
import * as m0003 from './0003_workflows.js';
import * as m0004 from './0004_scale.js';
import * as m0005 from './0005_structure.js';
import * as m0006 from './0006_file_store.js';
import * as m0007 from './0007_scale_statistics.js';
import * as m0008 from './0008_config_counts.js';
import * as m0009 from './0009_statistics_rollups.js';
import * as m0010 from './0010_complaint_runs.js';
import * as m0011 from './0011_team_change_counters.js';
import * as m0012 from './0012_gin_short_pending_lists.js';
import * as m0013 from './0013_covering_scope_indexes.js';
import * as m0014 from './0014_idempotency_keys.js';
import * as m0015 from './0015_events.js';
import * as m0016 from './0016_append_only_statistics.js';
import * as m0018 from './0018_login_throttles.js';
import * as m0019 from './0019_flat_popularity.js';
import * as m0020 from './0020_announcement_search_text.js';

/**
 * Every migration, listed explicitly (a FileMigrationProvider reads the folder at run time,
 * which breaks under vitest and bundlers). Keys sort in execution order.
 */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_case_insensitive_names': m0002,
  '0003_workflows': m0003,
  '0004_scale': m0004,
  '0005_structure': m0005,
  '0006_file_store': m0006,
  '0007_scale_statistics': m0007,
  '0008_config_counts': m0008,
  '0009_statistics_rollups': m0009,
  '0010_complaint_runs': m0010,
  '0011_team_change_counters': m0011,
  '0012_gin_short_pending_lists': m0012,
  '0013_covering_scope_indexes': m0013,
  '0014_idempotency_keys': m0014,
  '0015_events': m0015,
  '0016_append_only_statistics': m0016,
  '0018_login_throttles': m0018,
  '0019_flat_popularity': m0019,
  '0020_announcement_search_text': m0020,
};
