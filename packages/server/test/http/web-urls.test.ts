import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { expectInvalid } from '../support/expect.js';
import { categoryId as announcementCategory } from '../modules/announcements/helpers.js';
import { createTutorial, tutorialBody } from '../modules/tutorials/support.js';

/**
 * Every address a client shows or opens (announcement images and attachments, tutorial
 * thumbnails, videos, subtitles and attachments) is an https URL (components/schemas/WebUrl.yaml):
 * a script or data address would run in the page of every reader.
 */
const HOSTILE = [
  'javascript:alert(document.cookie)',
  'JavaScript:alert(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'vbscript:msgbox(1)',
  'http://cdn.transport-ops.example/plain.png',
  'https:alert(1)',
];
const RULE = 'must match pattern "^https://[^/?#\\s]"';
const attachment = (url: string) => ({ filename: 'note.pdf', type: 'application/pdf', size: 1200, url });

const t = useTestApp();
let supervisor: string;
beforeAll(async () => {
  supervisor = await t.token('supervisor');
});

const countOf = async (table: 'announcements' | 'tutorials') =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('announcement addresses', () => {
  const body = async (extra: Record<string, unknown>) => ({
    title: `Addresses ${Math.random().toString(36).slice(2)}`,
    content: 'Body.',
    categoryId: await announcementCategory(t, 'Company news'),
    ...extra,
  });

  it('refuses a non-https featured image or attachment on create, naming the field, and stores nothing', async () => {
    const before = await countOf('announcements');
    for (const url of HOSTILE) {
      const image = await t.call('createAnnouncement', { token: supervisor, body: await body({ featuredImage: { url } }) });
      expectInvalid(image, `body/featuredImage.url ${RULE}`);
      const attached = await t.call('createAnnouncement', { token: supervisor, body: await body({ attachments: [attachment(url)] }) });
      expectInvalid(attached, `body/attachments.0.url ${RULE}`);
    }
    expect(await countOf('announcements')).toBe(before);
  });

  it('refuses them on update too, and keeps the https addresses it had', async () => {
    const created = await t.call('createAnnouncement', {
      token: supervisor,
      body: await body({
        featuredImage: { url: 'https://cdn.transport-ops.example/a.png' },
        attachments: [attachment('https://cdn.transport-ops.example/a.pdf')],
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.result.id;
    for (const url of HOSTILE) {
      expectInvalid(
        await t.call('updateAnnouncement', { token: supervisor, params: { id }, body: { featuredImage: { url } } }),
        `body/featuredImage.url ${RULE}`,
      );
      expectInvalid(
        await t.call('updateAnnouncement', { token: supervisor, params: { id }, body: { attachments: [attachment(url)] } }),
        `body/attachments.0.url ${RULE}`,
      );
    }
    const read = await t.call('getAdminAnnouncementById', { token: supervisor, params: { id } });
    expect(read.body.result.featuredImage?.url).toBe('https://cdn.transport-ops.example/a.png');
    expect(read.body.result.attachments.map((a: { url: string }) => a.url)).toEqual(['https://cdn.transport-ops.example/a.pdf']);
  });
});

describe('tutorial addresses', () => {
  const video = (url: string, subtitle = 'https://cdn.transport-ops.example/en.vtt') => ({
    url,
    duration: 600,
    subtitles: [{ language: 'en', url: subtitle }],
  });
  const cases = (url: string) => [
    { body: { thumbnail: { url } }, field: 'body/thumbnail.url' },
    { body: { video: video(url) }, field: 'body/video.url' },
    { body: { video: video('https://cdn.transport-ops.example/v.mp4', url) }, field: 'body/video.subtitles.0.url' },
    { body: { attachments: [attachment(url)] }, field: 'body/attachments.0.url' },
  ];

  it('refuses a non-https thumbnail, video, subtitle or attachment on create, naming the field, and stores nothing', async () => {
    const before = await countOf('tutorials');
    for (const url of HOSTILE) {
      for (const c of cases(url)) {
        const res = await t.call('createTutorial', { token: supervisor, body: await tutorialBody(t, c.body) });
        expectInvalid(res, `${c.field} ${RULE}`);
      }
    }
    expect(await countOf('tutorials')).toBe(before);
  });

  it('refuses them on update too, and keeps the https addresses it had', async () => {
    const tutorial = await createTutorial(t, {
      thumbnail: { url: 'https://cdn.transport-ops.example/t.jpg' },
      video: video('https://cdn.transport-ops.example/v.mp4'),
    });
    for (const url of HOSTILE) {
      for (const c of cases(url)) {
        expectInvalid(
          await t.call('updateTutorial', { token: supervisor, params: { id: tutorial.id }, body: c.body }),
          `${c.field} ${RULE}`,
        );
      }
    }
    const read = await t.call('getAdminTutorialById', { token: supervisor, params: { id: tutorial.id } });
    expect(read.body.result.thumbnail?.url).toBe('https://cdn.transport-ops.example/t.jpg');
    expect(read.body.result.video?.url).toBe('https://cdn.transport-ops.example/v.mp4');
    expect(read.body.result.video?.subtitles.map((s: { url: string }) => s.url)).toEqual(['https://cdn.transport-ops.example/en.vtt']);
  });
});
