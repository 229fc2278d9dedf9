import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { errorMessages, useTestApp } from '../support/app.js';
import { expectUnauthenticated } from '../support/expect.js';

const t = useTestApp();

describe('upload operations', () => {
  it('refuse a JSON body with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const token = await t.token('agent');
    const res = await t.call('uploadTransportDocuments', { token, body: { transportId: 1, documentType: 'OTHER', files: ['a.pdf'] } });
    expect(res.status).toBe(415);
    expect(res.body.errors).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', contentType: 'application/json' });
  });

  it('refuse an unauthenticated upload before reading its parts', async () => {
    const form = new FormData();
    form.append('transportId', '1');
    form.append('documentType', 'OTHER');
    form.append('files', new Blob(['%PDF-1.4\n%%EOF\n']), 'a.pdf');
    const request = new Response(form);
    const res = await t.call('uploadTransportDocuments', {
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type')! },
    });
    expectUnauthenticated(res);
    expect(await t.db.selectFrom('transport_documents').select('id').where('transport_id', '=', 1).execute()).toEqual([]);
  });
});

describe('upload request limits and malformed bodies', () => {
  const boundary = 'upload-boundary-42';
  const head = (filename: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="transportId"\r\n\r\n1\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="documentType"\r\n\r\nOTHER\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`;
  const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const documents = async () =>
    Number(
      (
        await t.db
          .selectFrom('transport_documents')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('answers 413 in the envelope as soon as a streamed body passes 50 MB, stores nothing and closes the connection', async () => {
    const token = await t.token('admin');
    const before = await documents();
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    let sent = 0;
    const payload = Readable.from(
      (function* () {
        yield Buffer.from(head('big.pdf'));
        for (; sent < 300; sent++) yield chunk; // 300 MB if nobody stops reading
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      })(),
    );
    const res = await t.call('uploadTransportDocuments', { token, payload, headers });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, errors: { code: 'PAYLOAD_TOO_LARGE', limit: '50 MB multipart request' } });
    expect(res.headers.connection).toBe('close');
    expect(sent).toBeLessThan(60);
    expect(await documents()).toBe(before);
  });

  it('answers 413 before reading when the declared length is over 50 MB', async () => {
    const token = await t.token('admin');
    const res = await t.call('uploadTransportDocuments', {
      token,
      payload: Buffer.from(head('a.pdf')),
      headers: { ...headers, 'content-length': String(51 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.body.errors).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 400 for a malformed multipart body', async () => {
    const token = await t.token('admin');
    const res = await t.call('uploadTransportDocuments', { token, payload: Buffer.from(`${head('a.pdf')}%PDF-1.4 truncated`), headers });
    expect(res.status).toBe(400);
    expect(errorMessages(res.body)[0]).toMatch(/^body is not valid multipart\/form-data/);
  });

  it('refuses a NUL character in a file name with 400 naming the field', async () => {
    const token = await t.token('admin');
    const payload = Buffer.from(`${head('a\u0000.pdf')}%PDF-1.4\n%%EOF\n\r\n--${boundary}--\r\n`);
    const res = await t.call('uploadTransportDocuments', { token, payload, headers });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['body/files.0 must not contain NUL characters']);
  });
});
