import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

export const findProfileRow = (db: Db, userId: number) =>
  db.selectFrom('users').select(['id', 'bio', 'avatar_updated_at']).where('id', '=', userId).executeTakeFirst();

export const findAvatar = (db: Db, userId: number) =>
  db.selectFrom('users').select(['avatar', 'avatar_mime']).where('id', '=', userId).executeTakeFirst();

/** Stores (or, with `null`, removes) the user's avatar. */
export async function setAvatar(db: Db, userId: number, avatar: { bytes: Buffer; mime: string } | null): Promise<void> {
  await db
    .updateTable('users')
    .set(
      avatar
        ? { avatar: avatar.bytes, avatar_mime: avatar.mime, avatar_updated_at: new Date() }
        : { avatar: null, avatar_mime: null, avatar_updated_at: null },
    )
    .where('id', '=', userId)
    .execute();
}

export async function setBio(db: Db, userId: number, bio: string | null): Promise<void> {
  await db.updateTable('users').set({ bio, updated_at: new Date() }).where('id', '=', userId).execute();
}
