import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { expectError } from '../../support/expect.js';
import { countRows, fileComplaint, type FilePart, JPEG, loadRefs, moveTo, multipart, PDF, PNG, type Refs, TEXT } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

async function upload(user: DemoUser, files: FilePart[], complaintId?: number) {
  const form = await multipart(complaintId === undefined ? {} : { complaintId: String(complaintId) }, files);
  return t.call('uploadComplaintAttachments', { token: await t.token(user), ...form });
}

describe('POST /trade/complaints/upload (uploadComplaintAttachments)', () => {
  it('stores PNG, JPEG and PDF files detected by their bytes on the complaint', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await upload(
      'agent',
      [
        { name: 'dock.png', bytes: PNG, type: 'image/png' },
        { name: 'pallet.jpg', bytes: JPEG, type: 'image/jpeg' },
        { name: 'delivery-note.pdf', bytes: PDF, type: 'application/pdf' },
      ],
      id,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.message).toBe('3 files uploaded');
    const [png, jpeg, pdf] = res.body.result.uploaded;
    expect(png).toEqual({
      id: png!.id,
      filename: 'dock.png',
      type: 'image/png',
      size: PNG.length,
      url: `/trade/complaints/attachments/${png!.id}`,
    });
    expect(jpeg).toMatchObject({ filename: 'pallet.jpg', type: 'image/jpeg', size: JPEG.length });
    expect(pdf).toMatchObject({ filename: 'delivery-note.pdf', type: 'application/pdf', size: PDF.length });
    expect(res.body.result.errors).toEqual([]);
    const detail = await t.call('getComplaintById', { token: await t.token('agent'), params: { id } });
    expect(detail.body.result.attachments.map((a: { id: number; type: string }) => [a.id, a.type])).toEqual([
      [png!.id, 'image/png'],
      [jpeg!.id, 'image/jpeg'],
      [pdf!.id, 'application/pdf'],
    ]);
  });

  it('refuses a disguised file (text bytes named .png) by its content and keeps the others', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const res = await upload(
      'agent',
      [
        { name: 'photo.png', bytes: TEXT, type: 'image/png' },
        { name: 'scan.pdf', bytes: PDF, type: 'application/pdf' },
      ],
      id,
    );
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('1 file uploaded, 1 refused');
    expect(res.body.result.uploaded).toEqual([expect.objectContaining({ filename: 'scan.pdf', type: 'application/pdf' })]);
    expect(res.body.result.errors).toEqual([{ filename: 'photo.png', code: 'FILE_TYPE_NOT_ALLOWED', message: expect.any(String) }]);
    expect(await countRows(t, 'complaint_attachments', { column: 'complaint_id', value: id })).toBe(1);
  });

  it('lists an empty file and a file over 10 MB in errors', async () => {
    const big = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload('agent', [
      { name: 'empty.pdf', bytes: Buffer.alloc(0) },
      { name: 'huge.pdf', bytes: big },
      { name: 'ok.jpg', bytes: JPEG },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.result.uploaded.map((u: { filename: string }) => u.filename)).toEqual(['ok.jpg']);
    expect(res.body.result.errors).toEqual([
      expect.objectContaining({ filename: 'empty.pdf', code: 'FILE_EMPTY' }),
      expect.objectContaining({ filename: 'huge.pdf', code: 'FILE_TOO_LARGE' }),
    ]);
  });

  it('answers 400 UPLOAD_REJECTED when no file is accepted, storing nothing', async () => {
    const before = await countRows(t, 'complaint_attachments', { column: 'uploaded_by', value: refs.user('agent2') });
    const res = await upload('agent2', [
      { name: 'notes.png', bytes: TEXT },
      { name: 'readme.pdf', bytes: TEXT },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({
      code: 'UPLOAD_REJECTED',
      rejected: [
        expect.objectContaining({ filename: 'notes.png', code: 'FILE_TYPE_NOT_ALLOWED' }),
        expect.objectContaining({ filename: 'readme.pdf', code: 'FILE_TYPE_NOT_ALLOWED' }),
      ],
    });
    expect(await countRows(t, 'complaint_attachments', { column: 'uploaded_by', value: refs.user('agent2') })).toBe(before);
  });

  it('answers 413 for 11 files', async () => {
    const files = Array.from({ length: 11 }, (_, i) => ({ name: `p${i}.png`, bytes: PNG }));
    const res = await upload('agent', files);
    expect(res.status).toBe(413);
    expect(res.body.errors.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 400 without files part and 415 for a JSON body', async () => {
    const noFiles = await t.call('uploadComplaintAttachments', {
      token: await t.token('agent'),
      ...(await multipart({ complaintId: '1' }, [])),
    });
    expect(noFiles.status).toBe(400);
    expect(noFiles.body.errors).toEqual(['body/files is required']);
    const json = await t.call('uploadComplaintAttachments', { token: await t.token('agent'), body: { files: [] } });
    expect(json.status, JSON.stringify(json.body)).toBe(415);
    expect(json.body.errors.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 404 COMPLAINT_NOT_FOUND for the complaint of another agent and for an unknown one', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const other = await upload('agent2', [{ name: 'x.png', bytes: PNG }], id);
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'COMPLAINT_NOT_FOUND', complaintId: id });
    expect(await countRows(t, 'complaint_attachments', { column: 'complaint_id', value: id })).toBe(0);
    expect((await upload('agent', [{ name: 'x.png', bytes: PNG }], 99999)).status).toBe(404);
  });

  it('accepts files on a complaint being handled but answers 409 NOT_EDITABLE once it is CLOSED', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    await moveTo(t, id, ['IN_PROGRESS']);
    expect((await upload('agent', [{ name: 'more.png', bytes: PNG }], id)).status).toBe(201);
    await moveTo(t, id, ['REJECTED', 'CLOSED']);
    const res = await upload('agent', [{ name: 'late.png', bytes: PNG }], id);
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'complaint', id, status: 'CLOSED' });
  });
});

describe('GET /trade/complaints/attachments/{id} (downloadComplaintAttachment)', () => {
  it('returns the stored bytes with the detected type and the original name', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const stored = await upload('agent', [{ name: 'delivery note.pdf', bytes: PDF, type: 'application/octet-stream' }], id);
    const attachmentId: number = stored.body.result.uploaded[0]!.id;
    const res = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: attachmentId } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(String(res.headers['content-disposition'])).toContain('attachment; filename="delivery note.pdf"');
    expect(Buffer.compare(res.raw.rawPayload, PDF)).toBe(0);
  });

  it('lets the uploader download a pending attachment, nobody else', async () => {
    const stored = await upload('agent', [{ name: 'pending.png', bytes: PNG }]);
    const attachmentId: number = stored.body.result.uploaded[0]!.id;
    const mine = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: attachmentId } });
    expect(mine.status).toBe(200);
    expect(Buffer.compare(mine.raw.rawPayload, PNG)).toBe(0);
    const supervisor = await t.call('downloadComplaintAttachment', { token: await t.token('supervisor'), params: { id: attachmentId } });
    expect(supervisor.status).toBe(404);
    expect(supervisor.body.errors).toEqual({ code: 'DOCUMENT_NOT_FOUND', documentId: attachmentId });
  });

  it('follows the complaint scope: the team manager may, another agent may not', async () => {
    const { id } = await fileComplaint(t, refs, 'agent');
    const stored = await upload('agent', [{ name: 'scope.jpg', bytes: JPEG }], id);
    const attachmentId: number = stored.body.result.uploaded[0]!.id;
    expect((await t.call('downloadComplaintAttachment', { token: await t.token('manager'), params: { id: attachmentId } })).status).toBe(
      200,
    );
    const other = await t.call('downloadComplaintAttachment', { token: await t.token('agent2'), params: { id: attachmentId } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'DOCUMENT_NOT_FOUND', documentId: attachmentId });
  });

  it('answers 404 for an unknown attachment', async () => {
    const res = await t.call('downloadComplaintAttachment', { token: await t.token('admin'), params: { id: 99999 } });
    expectError(res, 404, 'DOCUMENT_NOT_FOUND', { documentId: 99999 });
  });
});

describe('sweep of uploads never linked to a complaint (app.sweepUnlinkedAttachments)', () => {
  const HOUR = 3600_000;
  const exists = async (id: number) =>
    (await t.db.selectFrom('complaint_attachments').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  it('removes pending uploads older than 24 h with their files, keeps younger ones and linked ones', async () => {
    const { id: complaintId } = await fileComplaint(t, refs, 'agent');
    const pending = (await upload('agent', [{ name: 'old.png', bytes: PNG }])).body.result.uploaded[0]!.id as number;
    const linked = (await upload('agent', [{ name: 'kept.pdf', bytes: PDF }], complaintId)).body.result.uploaded[0]!.id as number;
    const key = (await t.db.selectFrom('complaint_attachments').select('storage_key').where('id', '=', pending).executeTakeFirstOrThrow())
      .storage_key;
    const now = Date.now();

    // 23 hours later: still within the age, nothing goes.
    expect(await t.app.sweepUnlinkedAttachments(new Date(now + 23 * HOUR))).toBe(0);
    expect(await exists(pending)).toBe(true);
    const mine = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: pending } });
    expect(Buffer.compare(mine.raw.rawPayload, PNG)).toBe(0);

    // 25 hours later: the pending upload goes (this file's other pending uploads too), the linked one stays.
    expect(await t.app.sweepUnlinkedAttachments(new Date(now + 25 * HOUR))).toBeGreaterThanOrEqual(1);
    expect(await exists(pending)).toBe(false);
    expect(await exists(linked)).toBe(true);
    const gone = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: pending } });
    expect(gone.status).toBe(404);
    expect(gone.body.errors).toEqual({ code: 'DOCUMENT_NOT_FOUND', documentId: pending });
    expect(await t.db.selectFrom('complaint_attachments').select('id').where('complaint_id', 'is', null).execute()).toEqual([]);
    if (key !== null && t.app.files.dir !== null) {
      // Directory store: the file itself is gone and nothing is left queued.
      expect(existsSync(join(t.app.files.dir, key.slice(0, 2), key))).toBe(false);
      expect(await t.db.selectFrom('file_deletions').select('storage_key').where('storage_key', '=', key).execute()).toEqual([]);
    }
    const kept = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: linked } });
    expect(Buffer.compare(kept.raw.rawPayload, PDF)).toBe(0);

    // An upload linked after it was made is never swept, however old.
    const later = (await upload('agent', [{ name: 'late.jpg', bytes: JPEG }])).body.result.uploaded[0]!.id as number;
    await fileComplaint(t, refs, 'agent', { attachmentIds: [later] });
    expect(await t.app.sweepUnlinkedAttachments(new Date(now + 1000 * HOUR))).toBe(0);
    expect(await exists(later)).toBe(true);
  });
});
