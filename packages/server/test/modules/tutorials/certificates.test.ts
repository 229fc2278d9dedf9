import { inflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { expectInvalid, expectUnauthenticated } from '../../support/expect.js';
import { certificateCode, completeAs, createTutorial, SEEDED, seededTutorialId } from './support.js';

const t = useTestApp();

const pdfText = (body: Buffer) => body.toString('latin1');

/**
 * True when the PDF's RGB image shows the QR code of `text`: the centre pixel of every module is
 * dark exactly where the QR matrix is (the image is the PNG of qrcode: width 300, margin 1).
 */
async function pdfShowsQrOf(pdf: Buffer, text: string): Promise<boolean> {
  const source = pdfText(pdf);
  const image =
    /\/Subtype \/Image\n\/BitsPerComponent 8\n\/Width (\d+)\n\/Height (\d+)\n\/Filter \/FlateDecode\n\/ColorSpace \/DeviceRGB\n[\s\S]*?\/Length (\d+)\n>>\nstream\n/.exec(
      source,
    );
  if (!image) return false;
  const [width, length] = [Number(image[1]), Number(image[3])];
  const start = image.index + image[0].length;
  const rgb = inflateSync(pdf.subarray(start, start + length));
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules;
  const scale = width / (size + 2);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const x = Math.floor((col + 1.5) * scale);
      const y = Math.floor((row + 1.5) * scale);
      const dark = rgb[(y * width + x) * 3]! < 128;
      if (dark !== Boolean(data[row * size + col])) return false;
    }
  }
  return true;
}

describe('GET /trade/tutorials/{id}/certificate', () => {
  it('answers the caller certificate as a PDF whose QR code points to the public verification address', async () => {
    const id = await seededTutorialId(t, SEEDED.start);
    const res = await t.call('downloadTutorialCertificate', { token: await t.token('agent'), params: { id } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(String(res.headers['content-disposition'])).toContain('attachment; filename="certificate-DEMOSTART001.pdf"');
    const body = res.body as Buffer;
    expect(Number(res.headers['content-length'])).toBe(body.length);
    expect(pdfText(body.subarray(0, 5))).toBe('%PDF-');
    expect(pdfText(body)).toContain('(Certificate DEMOSTART001)'); // the document title
    expect(await pdfShowsQrOf(body, 'https://api.transport-ops.example/certificates/DEMOSTART001/verify')).toBe(true);
    expect(await pdfShowsQrOf(body, 'https://api.transport-ops.example/certificates/DEMOSTART002/verify')).toBe(false);
  });

  it('issues a certificate on completion whose code the public verification answers with holder and tutorial', async () => {
    const tutorial = await createTutorial(t, { title: 'Certified tutorial' });
    const done = await completeAs(t, 'agent2', tutorial);
    const res = await t.call('downloadTutorialCertificate', { token: await t.token('agent2'), params: { id: tutorial.id } });
    expect(res.status).toBe(200);
    const code = /certificate-([A-Z0-9]{12})\.pdf/.exec(String(res.headers['content-disposition']))?.[1];
    expect(code).toBe(await certificateCode(t, tutorial.id, 'agent2'));
    expect(pdfText(res.body as Buffer).startsWith('%PDF-')).toBe(true);

    const verify = await t.call('verifyCertificate', { params: { code: code! } });
    expect(verify.status).toBe(200);
    expect(verify.body.result).toEqual({
      valid: true,
      code,
      holder: { firstName: 'Karim', lastName: 'El Idrissi' },
      tutorial: { id: tutorial.id, title: 'Certified tutorial' },
      issuedAt: done.completedAt,
    });
  });

  it('answers 404 CERTIFICATE_NOT_FOUND to a user who has not completed a published tutorial', async () => {
    const id = await seededTutorialId(t, SEEDED.start);
    const res = await t.call('downloadTutorialCertificate', { token: await t.token('agent2'), params: { id } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CERTIFICATE_NOT_FOUND' });
  });

  it('gives each user only their own certificate', async () => {
    const id = await seededTutorialId(t, SEEDED.start);
    const manager = await t.call('downloadTutorialCertificate', { token: await t.token('manager'), params: { id } });
    expect(String(manager.headers['content-disposition'])).toContain('certificate-DEMOSTART002.pdf');
    const supervisor = await t.call('downloadTutorialCertificate', { token: await t.token('supervisor'), params: { id } });
    expect(supervisor.status).toBe(404);
  });

  it('answers 404 TUTORIAL_NOT_FOUND for an unknown tutorial and a draft the caller never completed', async () => {
    const draft = await seededTutorialId(t, SEEDED.securing);
    for (const id of [999999, draft]) {
      const res = await t.call('downloadTutorialCertificate', { token: await t.token('agent'), params: { id } });
      expect(res.status).toBe(404);
      expect(res.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: id });
    }
  });

  it('keeps the certificate available and valid after the tutorial goes back to draft', async () => {
    const tutorial = await createTutorial(t);
    await completeAs(t, 'manager', tutorial);
    const code = (await certificateCode(t, tutorial.id, 'manager'))!;
    const unpublish = await t.call('updateTutorial', {
      token: await t.token('supervisor'),
      params: { id: tutorial.id },
      body: { status: 'DRAFT' },
    });
    expect(unpublish.status).toBe(200);
    const pdf = await t.call('downloadTutorialCertificate', { token: await t.token('manager'), params: { id: tutorial.id } });
    expect(pdf.status).toBe(200);
    const verify = await t.call('verifyCertificate', { params: { code } });
    expect(verify.body.result.tutorial.id).toBe(tutorial.id);
  });

  it('answers 404 TUTORIAL_NOT_FOUND once the tutorial is deleted, while the certificate is kept and stays verifiable', async () => {
    const tutorial = await createTutorial(t);
    await completeAs(t, 'agent', tutorial);
    const code = (await certificateCode(t, tutorial.id, 'agent'))!;
    const deleted = await t.call('deleteTutorial', { token: await t.token('admin'), params: { id: tutorial.id } });
    expect(deleted.body).toMatchObject({ success: true, result: null });
    const pdf = await t.call('downloadTutorialCertificate', { token: await t.token('agent'), params: { id: tutorial.id } });
    expect(pdf.status).toBe(404);
    expect(pdf.body.errors).toEqual({ code: 'TUTORIAL_NOT_FOUND', tutorialId: tutorial.id });
    const row = await t.db.selectFrom('certificates').select(['tutorial_id', 'tutorial_title']).where('code', '=', code).executeTakeFirst();
    expect(row).toEqual({ tutorial_id: null, tutorial_title: tutorial.title });
    const verify = await t.call('verifyCertificate', { params: { code } });
    expect(verify.body.result).toMatchObject({ valid: true, code, tutorial: { id: null, title: tutorial.title } });
  });

  it('answers 401 without a token', async () => {
    const res = await t.call('downloadTutorialCertificate', { params: { id: 1 } });
    expectUnauthenticated(res);
  });
});

describe('GET /certificates/{code}/verify', () => {
  it('answers a seeded certificate without a token', async () => {
    const res = await t.call('verifyCertificate', { params: { code: 'DEMOSTART002' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      valid: true,
      code: 'DEMOSTART002',
      holder: { firstName: 'Julien', lastName: 'Moreau' },
      tutorial: { id: await seededTutorialId(t, SEEDED.start), title: SEEDED.start },
    });
  });

  it('answers 404 CERTIFICATE_NOT_FOUND for an unknown code', async () => {
    const res = await t.call('verifyCertificate', { params: { code: 'ZZZZZZZZZZZZ' } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual({ code: 'CERTIFICATE_NOT_FOUND', certificateCode: 'ZZZZZZZZZZZZ' });
  });

  it('answers 400 for a code that is not 12 upper-case letters or digits', async () => {
    const res = await t.call('verifyCertificate', { params: { code: 'demostart001' } });
    expectInvalid(res, /^params\/code must match pattern /);
  });
});
