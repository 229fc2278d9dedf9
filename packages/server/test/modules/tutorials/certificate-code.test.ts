import { describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { certificateCode, completeAs, createTutorial } from './support.js';

// The codes the server draws, in order: the first is already taken by the demo seed.
const drawn = vi.hoisted(() => ['DEMOSTART001', 'RETRYCODE001']);

vi.mock('../../../src/modules/tutorials/certificate.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/modules/tutorials/certificate.js')>();
  return { ...original, newCertificateCode: () => drawn.shift() ?? original.newCertificateCode() };
});

const t = useTestApp();

describe('certificate codes', () => {
  it('draws a new code when the first one is already taken (unique violation) and completes', async () => {
    const tutorial = await createTutorial(t);
    const done = await completeAs(t, 'agent2', tutorial);
    expect(done.tutorialId).toBe(tutorial.id);
    expect(await certificateCode(t, tutorial.id, 'agent2')).toBe('RETRYCODE001');
    expect(drawn).toEqual([]);
    const verify = await t.call('verifyCertificate', { params: { code: 'RETRYCODE001' } });
    expect(verify.body.result).toMatchObject({ holder: { firstName: 'Karim', lastName: 'El Idrissi' }, tutorial: { id: tutorial.id } });
    // The seeded certificate still belongs to its holder.
    const seeded = await t.call('verifyCertificate', { params: { code: 'DEMOSTART001' } });
    expect(seeded.body.result.holder).toEqual({ firstName: 'Sarah', lastName: 'Benali' });
  });

  it('draws codes of 12 upper-case letters and digits', async () => {
    const { newCertificateCode } = await vi.importActual<typeof import('../../../src/modules/tutorials/certificate.js')>(
      '../../../src/modules/tutorials/certificate.js',
    );
    const codes = Array.from({ length: 200 }, () => newCertificateCode());
    expect(codes.every((c) => /^[A-Z0-9]{12}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBe(200);
  });
});
