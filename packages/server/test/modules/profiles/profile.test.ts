import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectError, expectUnauthenticated } from '../../support/expect.js';
import { PDF, PNG } from '../complaints/fixtures.js';
import { createTutorial } from '../tutorials/support.js';

const t = useTestApp();

async function avatarForm(name: string, bytes: Buffer, type = 'image/png') {
  const form = new FormData();
  form.append('avatar', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = new Response(form);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}
const userId = async (username: string) =>
  (await t.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

describe('PUT /trade/profile/avatar (uploadAvatar) and GET /trade/users/{id}/avatar (getUserAvatar)', () => {
  it('stores a picture checked by its bytes and serves it to other users, with its address in the author objects', async () => {
    const res = await t.call('uploadAvatar', { token: await t.token('agent'), ...(await avatarForm('me.png', PNG)) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = await userId('agent');
    expect(res.body).toMatchObject({
      message: 'Avatar updated',
      result: { userId: id, avatar: expect.stringMatching(new RegExp(`^/trade/users/${id}/avatar\\?v=\\d+$`)) },
    });

    const picture = await t.call('getUserAvatar', { token: await t.token('agent2'), params: { id } });
    expect(picture.status).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(picture.raw.rawPayload, PNG)).toBe(0);

    const topic = await t.call('createForumTopic', {
      token: await t.token('agent'),
      body: { title: 'Avatar check topic', content: 'Does my picture show next to my name?' },
    });
    expect(topic.body.result.author).toEqual({
      id,
      firstName: expect.any(String),
      lastName: expect.any(String),
      avatar: res.body.result.avatar,
    });
  });

  it('refuses a file whose bytes are not a picture, whatever its name and declared type, with 400 UPLOAD_REJECTED', async () => {
    const res = await t.call('uploadAvatar', { token: await t.token('agent2'), ...(await avatarForm('photo.png', PDF, 'image/png')) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({
      code: 'UPLOAD_REJECTED',
      rejected: [
        {
          filename: 'photo.png',
          code: 'FILE_TYPE_NOT_ALLOWED',
          message: 'The file content is application/pdf; accepted: image/png, image/jpeg, image/webp',
        },
      ],
    });
    const row = await t.db.selectFrom('users').select('avatar_mime').where('username', '=', 'agent2').executeTakeFirstOrThrow();
    expect(row.avatar_mime).toBeNull();
  });

  it('removes the avatar; the picture then answers 404', async () => {
    await t.call('uploadAvatar', { token: await t.token('manager'), ...(await avatarForm('m.png', PNG)) });
    const res = await t.call('deleteAvatar', { token: await t.token('manager') });
    expect(res.body).toMatchObject({ message: 'Avatar removed', result: { avatar: null } });
    const id = await userId('manager');
    const picture = await t.call('getUserAvatar', { token: await t.token('agent'), params: { id } });
    expect(picture.status).toBe(404);
    expect(picture.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'avatar', id });
  });

  it('answers 415 for a JSON body and 401 without a token', async () => {
    const avatarOf = () =>
      t.db
        .selectFrom('users')
        .select(['avatar', 'avatar_mime', 'avatar_updated_at'])
        .where('username', '=', 'agent')
        .executeTakeFirstOrThrow();
    const before = await avatarOf();
    const json = await t.call('uploadAvatar', { token: await t.token('agent'), body: { avatar: ['x'] } });
    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE', { contentType: 'application/json' });
    expectUnauthenticated(await t.call('uploadAvatar', await avatarForm('me.png', PNG)));
    expect(await avatarOf()).toEqual(before);
  });
});

describe('PUT /trade/profile/bio (updateBio) and GET /trade/users/{id}/profile (getUserPublicProfile)', () => {
  it('sets, shows and clears the biography', async () => {
    const token = await t.token('supervisor');
    const set = await t.call('updateBio', { token, body: { bio: '  Supervisor of the Lyon and Marseille hubs.  ' } });
    expect(set.body).toMatchObject({ message: 'Biography updated', result: { bio: 'Supervisor of the Lyon and Marseille hubs.' } });
    const id = await userId('supervisor');
    const seen = await t.call('getUserPublicProfile', { token: await t.token('agent'), params: { id } });
    expect(seen.body.result).toEqual({ userId: id, bio: 'Supervisor of the Lyon and Marseille hubs.', avatar: null });
    const cleared = await t.call('updateBio', { token, body: { bio: '   ' } });
    expect(cleared.body.result.bio).toBeNull();
  });

  it('shows the biography and avatar of a tutorial author', async () => {
    await t.call('updateBio', { token: await t.token('supervisor'), body: { bio: 'Writes the safety tutorials.' } });
    const tutorial = await createTutorial(t); // written by the supervisor
    const detail = await t.call('getTutorialById', { token: await t.token('agent'), params: { id: tutorial.id } });
    expect(detail.body.result.author).toMatchObject({ id: await userId('supervisor'), bio: 'Writes the safety tutorials.', avatar: null });
  });

  it('refuses a biography over 1 000 characters with 400, and answers 404 for an unknown user', async () => {
    const long = await t.call('updateBio', { token: await t.token('agent'), body: { bio: 'x'.repeat(1001) } });
    expect(long.status).toBe(400);
    const unknown = await t.call('getUserPublicProfile', { token: await t.token('agent'), params: { id: 999999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors).toEqual({ code: 'RESOURCE_NOT_FOUND', resource: 'user', id: 999999 });
  });
});
