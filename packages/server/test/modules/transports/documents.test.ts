import { beforeAll, describe, expect, it } from 'vitest';
import { type DemoUser, useTestApp } from '../../support/app.js';
import { responseExamples } from '../../support/contract.js';
import { applyActions, createTransport, loadRefs, type Refs } from './fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n' + 'trailer<</Root 1 0 R>>\n%%EOF\n',
);

/** A 1×1 PNG: signature, IHDR, IDAT and IEND chunks (CRCs are not checked by type detection). */
function png(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'ascii'), data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x63, 0, 0, 0, 2, 0, 1])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const PNG = png();
const HTML_AS_PDF = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');

interface Part {
  name: string;
  bytes: Buffer;
  type?: string;
}

/** A multipart body built by the platform's FormData, as a browser would send it. */
async function multipart(fields: Record<string, string>, files: Part[]) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.bytes)], { type: f.type ?? 'application/octet-stream' }), f.name);
  const res = new Response(form);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

async function upload(user: DemoUser, transportId: number, files: Part[], documentType = 'DRIVING_LICENSE') {
  const body = await multipart({ transportId: String(transportId), documentType }, files);
  return t.call('uploadTransportDocuments', { token: await t.token(user), ...body });
}

describe('POST /trade/transports/upload (uploadTransportDocuments)', () => {
  it('stores a PDF and a PNG detected by their bytes and refuses a disguised file, keeping the others', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const res = await upload('agent', transport.id, [
      { name: 'permis.pdf', bytes: PDF, type: 'application/pdf' },
      { name: 'scan.png', bytes: PNG, type: 'image/png' },
      { name: 'x.pdf', bytes: HTML_AS_PDF, type: 'application/pdf' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.message).toBe('2 of 3 files uploaded');
    const [pdf, image] = res.body.result.uploaded;
    expect(pdf).toMatchObject({
      filename: 'permis.pdf',
      type: 'application/pdf',
      size: PDF.length,
      url: `/trade/transports/documents/${pdf!.id}`,
    });
    expect(image).toMatchObject({ filename: 'scan.png', type: 'image/png', size: PNG.length });
    expect(res.body.result.errors).toEqual([{ filename: 'x.pdf', code: 'FILE_TYPE_NOT_ALLOWED', message: expect.any(String) }]);

    const detail = await t.call('getTransportById', { token: await t.token('agent'), params: { id: transport.id } });
    expect(detail.body.result.documents).toEqual([
      expect.objectContaining({
        id: pdf!.id,
        type: 'DRIVING_LICENSE',
        filename: 'permis.pdf',
        mimeType: 'application/pdf',
        size: PDF.length,
      }),
      expect.objectContaining({ id: image!.id, type: 'DRIVING_LICENSE', filename: 'scan.png', mimeType: 'image/png', size: PNG.length }),
    ]);
  });

  it('lists an empty file and a file over 10 MB in errors and keeps the valid one', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const big = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload(
      'agent',
      transport.id,
      [
        { name: 'empty.pdf', bytes: Buffer.alloc(0) },
        { name: 'big.pdf', bytes: big },
        { name: 'insurance.pdf', bytes: PDF },
      ],
      'INSURANCE',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.result.uploaded.map((u: { filename: string }) => u.filename)).toEqual(['insurance.pdf']);
    expect(res.body.result.errors.map((e: { filename: string; code: string }) => [e.filename, e.code])).toEqual([
      ['empty.pdf', 'FILE_EMPTY'],
      ['big.pdf', 'FILE_TOO_LARGE'],
    ]);
  });

  it('answers 400 UPLOAD_REJECTED and stores nothing when no file is accepted', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const res = await upload('agent', transport.id, [
      { name: 'x.pdf', bytes: HTML_AS_PDF, type: 'application/pdf' },
      { name: 'notes.txt', bytes: Buffer.from('just text') },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toMatchObject({
      code: 'UPLOAD_REJECTED',
      rejected: [
        { filename: 'x.pdf', code: 'FILE_TYPE_NOT_ALLOWED' },
        { filename: 'notes.txt', code: 'FILE_TYPE_NOT_ALLOWED' },
      ],
    });
    const stored = await t.db.selectFrom('transport_documents').select('id').where('transport_id', '=', transport.id).execute();
    expect(stored).toHaveLength(0);
  });

  it('answers 413 for 6 files and stores none of them', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `doc-${i}.pdf`, bytes: PDF }));
    const res = await upload('agent', transport.id, files);
    expect(res.status).toBe(413);
    expect(res.body.errors).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const stored = await t.db.selectFrom('transport_documents').select('id').where('transport_id', '=', transport.id).execute();
    expect(stored).toHaveLength(0);
  });

  it('answers 404 TRANSPORT_NOT_FOUND for a transport of another agent and for an absent one', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const other = await upload('agent2', transport.id, [{ name: 'permis.pdf', bytes: PDF }]);
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'TRANSPORT_NOT_FOUND', transportId: transport.id });
    const absent = await upload('agent', 999999, [{ name: 'permis.pdf', bytes: PDF }]);
    expect(absent.status).toBe(404);
    const stored = await t.db.selectFrom('transport_documents').select('id').where('transport_id', '=', transport.id).execute();
    expect(stored).toHaveLength(0);
  });

  it('answers 409 NOT_EDITABLE for an archived transport but accepts documents while it is in progress', async () => {
    const transport = await createTransport(t, refs, 'agent');
    await applyActions(t, transport.id, ['VALIDATE', 'START']);
    const during = await upload('agent', transport.id, [{ name: 'registration.pdf', bytes: PDF }], 'VEHICLE_REGISTRATION');
    expect(during.status).toBe(201);
    await applyActions(t, transport.id, ['FINISH', 'ARCHIVE']);
    const archived = await upload('agent', transport.id, [{ name: 'late.pdf', bytes: PDF }]);
    expect(archived.status).toBe(409);
    expect(archived.body.errors).toEqual({ code: 'NOT_EDITABLE', resource: 'transport', id: transport.id, status: 'ARCHIVED' });
  });

  it('answers 400 for a missing documentType', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const missing = await multipart({ transportId: String(transport.id) }, [{ name: 'permis.pdf', bytes: PDF }]);
    const res = await t.call('uploadTransportDocuments', { token: await t.token('agent'), ...missing });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(responseExamples('uploadTransportDocuments', 400).validation);
  });
});

describe('GET /trade/transports/documents/{id} (downloadTransportDocument)', () => {
  it('returns the stored bytes with their content type to the owner and to the team manager, 404 to agent2', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const up = await upload('agent', transport.id, [
      { name: 'permis-marc.pdf', bytes: PDF },
      { name: 'scan.png', bytes: PNG },
    ]);
    expect(up.status).toBe(201);
    const [pdf, image] = up.body.result.uploaded as { id: number }[];
    for (const user of ['agent', 'manager'] as const) {
      const res = await t.call('downloadTransportDocument', { token: await t.token(user), params: { id: pdf!.id } });
      expect(res.status, user).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(String(res.headers['content-disposition'])).toContain('attachment; filename="permis-marc.pdf"');
      expect(Buffer.compare(res.body as Buffer, PDF)).toBe(0);
    }
    const pngRes = await t.call('downloadTransportDocument', { token: await t.token('agent'), params: { id: image!.id } });
    expect(pngRes.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(pngRes.body as Buffer, PNG)).toBe(0);

    const other = await t.call('downloadTransportDocument', { token: await t.token('agent2'), params: { id: pdf!.id } });
    expect(other.status).toBe(404);
    expect(other.body.errors).toEqual({ code: 'DOCUMENT_NOT_FOUND', documentId: pdf!.id });
  });

  it('answers 404 DOCUMENT_NOT_FOUND for an absent document', async () => {
    const res = await t.call('downloadTransportDocument', { token: await t.token('supervisor'), params: { id: 999999 } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'DOCUMENT_NOT_FOUND', documentId: 999999 });
  });
});
