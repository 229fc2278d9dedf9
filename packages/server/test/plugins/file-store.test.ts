import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type DemoUser, type TestApp } from '../support/app.js';
import { fileComplaint, insertTransport, loadRefs, multipart, PDF, PNG, type Refs } from '../modules/complaints/fixtures.js';

// The directory store (the embedded database's default) on a directory of this file's own.
const dir = mkdtempSync(join(tmpdir(), 'transport-ops-file-store-test-'));
let t: TestApp;
let refs: Refs;
beforeAll(async () => {
  t = await createTestApp({ fileStore: { kind: 'directory', dir } });
  refs = await loadRefs(t);
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every file under the store's directory (relative paths). */
const storedFiles = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
const pathOf = (key: string) => join(dir, key.slice(0, 2), key);
/** For work done after the answer (file removal after commit): vi.waitFor's own 1 s is a race on a busy machine. */
const settled = { timeout: 60_000, interval: 50 };

async function uploadDocument(user: DemoUser, transportId: number, files = [{ name: 'permit.pdf', bytes: PDF }]) {
  const form = await multipart({ transportId: String(transportId), documentType: 'INSURANCE' }, files);
  return t.call('uploadTransportDocuments', { token: await t.token(user), ...form });
}

async function uploadAttachment(user: DemoUser, files = [{ name: 'dock.png', bytes: PNG }]) {
  return t.call('uploadComplaintAttachments', { token: await t.token(user), ...(await multipart({}, files)) });
}

const documentRow = (id: number) =>
  t.db.selectFrom('transport_documents').select(['content', 'storage_key']).where('id', '=', id).executeTakeFirstOrThrow();
const attachmentRow = (id: number) =>
  t.db.selectFrom('complaint_attachments').select(['content', 'storage_key']).where('id', '=', id).executeTakeFirstOrThrow();

describe('directory file store', () => {
  it('keeps a transport document in a file named by a random key and downloads the same bytes', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const up = await uploadDocument('agent', transport.id);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.result.uploaded[0]!.id;
    const row = await documentRow(id);
    expect(row.content).toBeNull();
    expect(row.storage_key).toMatch(/^[0-9a-f]{32}$/);
    expect(readFileSync(pathOf(row.storage_key!)).equals(PDF)).toBe(true);

    const res = await t.call('downloadTransportDocument', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-length']).toBe(String(PDF.length));
    expect(String(res.headers['content-disposition'])).toContain('attachment; filename="permit.pdf"');
    expect(Buffer.compare(res.body as Buffer, PDF)).toBe(0);
  });

  it('keeps a complaint attachment in a file and downloads the same bytes', async () => {
    const up = await uploadAttachment('agent');
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.result.uploaded[0]!.id;
    const row = await attachmentRow(id);
    expect(row.content).toBeNull();
    expect(readFileSync(pathOf(row.storage_key!)).equals(PNG)).toBe(true);

    const res = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(res.body as Buffer, PNG)).toBe(0);
  });

  it('still serves documents whose bytes are in the database (rows written by the database store)', async () => {
    const seeded = await t.db
      .selectFrom('transport_documents as d')
      .innerJoin('transports as t', 't.id', 'd.transport_id')
      .innerJoin('users as u', 'u.id', 't.created_by')
      .select(['d.id', 'd.content'])
      .where('u.username', '=', 'agent')
      .where('d.content', 'is not', null)
      .executeTakeFirstOrThrow();
    const res = await t.call('downloadTransportDocument', { token: await t.token('agent'), params: { id: seeded.id } });
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, Buffer.from(seeded.content!))).toBe(0);

    // Larger than one read slice (256 kB): read in three slices, sent whole.
    const big = Buffer.concat([PDF, randomBytes(600 * 1024)]);
    const transport = await insertTransport(t, refs, 'agent');
    const row = await t.db
      .insertInto('transport_documents')
      .values({
        transport_id: transport.id,
        type: 'OTHER',
        filename: 'big.pdf',
        mime_type: 'application/pdf',
        size: big.length,
        content: big,
        uploaded_by: refs.user('agent'),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const bigRes = await t.call('downloadTransportDocument', { token: await t.token('agent'), params: { id: row.id } });
    expect(bigRes.status).toBe(200);
    expect(bigRes.headers['content-length']).toBe(String(big.length));
    expect(Buffer.compare(bigRes.body as Buffer, big)).toBe(0);
  });

  it('spools uploads beside the files and leaves no spool file once the answer is sent', async () => {
    const spool = join(dir, 'spool');
    // The process keeps one spool directory of its own (named after the host and process, so that a
    // later start can remove what a crashed process left); the files in it are the uploads in flight.
    const spoolFiles = () =>
      readdirSync(spool, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    const transport = await insertTransport(t, refs, 'agent');
    const text = { name: 'notes.txt', bytes: Buffer.from('not a document') };
    const mixed = await uploadDocument('agent', transport.id, [{ name: 'permit.pdf', bytes: PDF }, text]);
    expect(mixed.status).toBe(201);
    expect(mixed.body.result.errors).toEqual([expect.objectContaining({ filename: 'notes.txt', code: 'FILE_TYPE_NOT_ALLOWED' })]);
    const kept = await documentRow(mixed.body.result.uploaded[0]!.id);
    expect(readFileSync(pathOf(kept.storage_key!)).equals(PDF)).toBe(true);
    expect(existsSync(spool)).toBe(true);
    expect(spoolFiles()).toEqual([]);
    const refused = await uploadDocument('agent', transport.id, [text]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toMatchObject({ code: 'UPLOAD_REJECTED' });
    expect(spoolFiles()).toEqual([]);
    const foreign = await uploadDocument('agent2', transport.id);
    expect(foreign.status).toBe(404);
    expect(spoolFiles()).toEqual([]);
  });

  it('removes the stored files when the transaction fails (transport of another agent)', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const before = storedFiles().length;
    const res = await uploadDocument('agent2', transport.id, [
      { name: 'a.pdf', bytes: PDF },
      { name: 'b.png', bytes: PNG },
    ]);
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: transport.id });
    expect(storedFiles()).toHaveLength(before);
  });

  it('removes the files of documents deleted with their transport, once the deletion has committed', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const up = await uploadDocument('agent', transport.id);
    const { storage_key: key } = await documentRow(up.body.result.uploaded[0]!.id);
    expect(existsSync(pathOf(key!))).toBe(true);

    const res = await t.call('deleteTransport', { token: await t.token('agent'), params: { id: transport.id } });
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(existsSync(pathOf(key!))).toBe(false), settled);
    await vi.waitFor(async () => expect(await t.db.selectFrom('file_deletions').select('storage_key').execute()).toEqual([]), settled);
  });

  it('removes the files of attachments deleted with their complaint', async () => {
    const up = await uploadAttachment('agent');
    const attachmentId = up.body.result.uploaded[0]!.id;
    const { storage_key: key } = await attachmentRow(attachmentId);
    const { id } = await fileComplaint(t, refs, 'agent', { attachmentIds: [attachmentId] });

    const res = await t.call('deleteComplaint', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(existsSync(pathOf(key!))).toBe(false), settled);
  });

  it('answers 410 DOCUMENT_CONTENT_MISSING when a file is no longer in the store', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const doc = await uploadDocument('agent', transport.id);
    const documentId = doc.body.result.uploaded[0]!.id;
    rmSync(pathOf((await documentRow(documentId)).storage_key!));
    const lostDocument = await t.call('downloadTransportDocument', { token: await t.token('agent'), params: { id: documentId } });
    expect(lostDocument.status).toBe(410);
    expect(lostDocument.body).toMatchObject({ success: false, errors: { code: 'DOCUMENT_CONTENT_MISSING', documentId } });

    const att = await uploadAttachment('agent');
    const attachmentId = att.body.result.uploaded[0]!.id;
    rmSync(pathOf((await attachmentRow(attachmentId)).storage_key!));
    const lostAttachment = await t.call('downloadComplaintAttachment', { token: await t.token('agent'), params: { id: attachmentId } });
    expect(lostAttachment.status).toBe(410);
    expect(lostAttachment.body.errors).toEqual({ code: 'DOCUMENT_CONTENT_MISSING', documentId: attachmentId });
  });

  it('removes files an hour old that no row refers to (a crash before commit), and keeps the others', async () => {
    const transport = await insertTransport(t, refs, 'agent');
    const up = await uploadDocument('agent', transport.id);
    const kept = pathOf((await documentRow(up.body.result.uploaded[0]!.id)).storage_key!);
    const orphan = pathOf('ab'.repeat(16));
    const partial = `${pathOf('cd'.repeat(16))}.0a1b2c3d.partial`;
    const young = pathOf('ef'.repeat(16));
    for (const path of [orphan, partial, young]) {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, PDF);
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const path of [kept, orphan, partial]) utimesSync(path, twoHoursAgo, twoHoursAgo);

    expect(await t.app.files.removeOrphans(t.db, 3600_000)).toBe(2);
    expect([existsSync(kept), existsSync(orphan), existsSync(partial), existsSync(young)]).toEqual([true, false, false, true]);
    rmSync(young);
  });

  it('refuses a row holding both bytes and a key, or neither (CHECK constraint)', async () => {
    const base = { transport_id: (await insertTransport(t, refs, 'agent')).id, type: 'OTHER' as const, filename: 'x.pdf' };
    const row = { ...base, mime_type: 'application/pdf', size: 1, uploaded_by: refs.user('agent') };
    await expect(
      t.db
        .insertInto('transport_documents')
        .values({ ...row, content: PDF, storage_key: '0'.repeat(32) })
        .execute(),
    ).rejects.toThrow(/transport_documents_content_or_key_check/);
    await expect(
      t.db
        .insertInto('transport_documents')
        .values({ ...row, content: null, storage_key: null })
        .execute(),
    ).rejects.toThrow(/transport_documents_content_or_key_check/);
  });
});
