import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

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
    expect(res.status).toBe(401);
  });
});
