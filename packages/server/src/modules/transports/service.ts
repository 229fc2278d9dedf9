import type { AuthContext } from '../../lib/identity.js';
import { ownership } from '../../lib/scope.js';
import { type Db, loadTransport } from './repository.js';
import { transportNotFound } from './rules.js';

/*
 * Steps the trade and administration handlers share: a repository read and its rule, no SQL
 * (handler files never import each other).
 */

/** The transport as answered after a write (it exists: the caller just wrote it). */
export async function reload(db: Db, id: number) {
  const record = await loadTransport(db, id);
  if (!record) throw transportNotFound(id);
  return record;
}

/**
 * The transport as `auth` may see it: a 404 when it is absent or outside the caller's scope.
 * With `forUpdate` (a conditional write), its row is locked by the same read.
 */
export async function loadVisible(db: Db, auth: AuthContext, id: number, forUpdate = false) {
  const record = await loadTransport(db, id, ownership(auth), forUpdate);
  if (!record) throw transportNotFound(id);
  return record;
}
