import type { components } from '@transport-ops/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { ModuleHandlers } from '../../http/handlers.js';
import { avatarUrl } from '../../lib/avatar.js';
import { caller } from '../../lib/identity.js';
import { screenUploads, uploadedBytes } from '../../lib/uploads.js';
import { findAvatar, findProfileRow, setAvatar, setBio } from './repository.js';

type PublicProfile = components['schemas']['UserPublicProfile'];

async function publicProfile(db: Kysely<Database>, userId: number): Promise<PublicProfile | undefined> {
  const row = await findProfileRow(db, userId);
  return row && { userId: row.id, bio: row.bio, avatar: avatarUrl(row.id, row.avatar_updated_at) };
}

async function ownProfile(db: Kysely<Database>, userId: number): Promise<PublicProfile> {
  const profile = await publicProfile(db, userId);
  if (!profile) throw notFound.resource('user', userId);
  return profile;
}

export const profileHandlers: ModuleHandlers<'uploadAvatar' | 'deleteAvatar' | 'updateBio' | 'getUserAvatar' | 'getUserPublicProfile'> = {
  async uploadAvatar(req) {
    const auth = caller(req);
    const { accepted, rejected } = screenUploads(req);
    const picture = accepted[0];
    if (!picture) throw new AppError('UPLOAD_REJECTED', { rejected }, 'The avatar was not accepted');
    await setAvatar(req.server.db, auth.userId, { bytes: await uploadedBytes(picture), mime: picture.detectedType });
    return { message: 'Avatar updated', result: await ownProfile(req.server.db, auth.userId) };
  },

  async deleteAvatar(req) {
    const auth = caller(req);
    await setAvatar(req.server.db, auth.userId, null);
    return { message: 'Avatar removed', result: await ownProfile(req.server.db, auth.userId) };
  },

  async updateBio(req) {
    const auth = caller(req);
    const bio = req.body.bio === null ? null : req.body.bio.trim() || null;
    await setBio(req.server.db, auth.userId, bio);
    return { message: 'Biography updated', result: await ownProfile(req.server.db, auth.userId) };
  },

  async getUserAvatar(req) {
    caller(req);
    const { id } = req.params;
    const row = await findAvatar(req.server.db, id);
    if (!row?.avatar || !row.avatar_mime) throw notFound.resource('avatar', id);
    const extension = row.avatar_mime.split('/')[1];
    return { file: { filename: `avatar-${id}.${extension}`, contentType: row.avatar_mime, body: row.avatar, inline: true } };
  },

  async getUserPublicProfile(req) {
    caller(req);
    const profile = await publicProfile(req.server.db, req.params.id);
    if (!profile) throw notFound.resource('user', req.params.id);
    return { message: 'Profile retrieved', result: profile };
  },
};
