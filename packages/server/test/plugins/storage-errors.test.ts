import { readdirSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FileStore } from '../../src/lib/file-store.js';
import { useTestApp } from '../support/app.js';
import { multipart } from '../modules/complaints/fixtures.js';
import { createTransport, loadRefs } from '../modules/transports/fixtures.js';

/*
 * A full disk, an exceeded quota or a failing volume while an upload is written: the client is told
 * to retry later (507 STORAGE_UNAVAILABLE with Retry-After, not a 400 that says its request is
 * wrong), the operator is told at error level, and nothing is left: no row, no spool file. The
 * failures are injected into the file store of the app (the error the file system raises).
 */

// Its own app, logging errors, so that what the operator sees can be read.
const t = useTestApp({ logLevel: 'error' });
let transportId: number;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'.repeat(400));
const logged: unknown[][] = [];

beforeAll(async () => {
  transportId = (await createTransport(t, await loadRefs(t), 'agent')).id;
  const child = t.app.log.child.bind(t.app.log);
  vi.spyOn(t.app.log, 'child').mockImplementation((bindings, options) => {
    const logger = child(bindings, options);
    const error = logger.error.bind(logger);
    logger.error = ((...args: unknown[]) => {
      logged.push(args);
      return (error as (...a: unknown[]) => void)(...args);
    }) as typeof logger.error;
    return logger;
  });
});

const original = new Map<keyof FileStore, unknown>();
const inject = <K extends 'spool' | 'put'>(method: K, replacement: FileStore[K]) => {
  original.set(method, t.app.files[method]);
  (t.app.files as unknown as Record<string, unknown>)[method] = replacement;
};
afterEach(() => {
  for (const [method, fn] of original) (t.app.files as unknown as Record<string, unknown>)[method] = fn;
  original.clear();
  logged.length = 0;
});

/** The file system's error, as fs raises it. */
const fsError = (code: string, errno: number) =>
  Object.assign(new Error(`${code}: failed, write`), { code, errno, syscall: 'write' }) as NodeJS.ErrnoException;

/** Files in this process's spool directories (every store of the tests spools under the system's temporary directory). */
function spoolFiles(): number {
  const mine = `transport-ops-spool-${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}.${process.pid}.`;
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith(mine))
    .reduce((n, name) => n + readdirSync(join(tmpdir(), name)).length, 0);
}

const documents = async () =>
  Number(
    (
      await t.db
        .selectFrom('transport_documents')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('transport_id', '=', transportId)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function upload() {
  const { payload, headers } = await multipart({ transportId: String(transportId), documentType: 'OTHER' }, [
    { name: 'first.pdf', bytes: PDF, type: 'application/pdf' },
    { name: 'second.pdf', bytes: PDF, type: 'application/pdf' },
  ]);
  return t.call('uploadTransportDocuments', { token: await t.token('agent'), payload, headers });
}

describe('storage failures during an upload', () => {
  it('answers 507 STORAGE_UNAVAILABLE NO_SPACE with Retry-After when the disk fills while a file is spooled, logs it at error and keeps nothing', async () => {
    const spool = t.app.files.spool.bind(t.app.files);
    let spooled = 0;
    let duringUpload = 0;
    // The first file is written whole; the disk is full halfway through the second.
    inject('spool', (source) => {
      spooled += 1;
      if (spooled === 1) return spool(source);
      duringUpload = spoolFiles();
      let bytes = 0;
      const filling = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(bytes > 4096 ? fsError('ENOSPC', -28) : null, chunk);
        },
      });
      return spool(source.pipe(filling));
    });
    const before = { rows: await documents(), spool: spoolFiles() };
    const res = await upload();
    expect(res.status, JSON.stringify(res.body)).toBe(507);
    expect(res.body).toEqual({
      success: false,
      message: 'Storage unavailable',
      result: null,
      errors: { code: 'STORAGE_UNAVAILABLE', reason: 'NO_SPACE', retryAfterSeconds: 60 },
      except: null,
    });
    expect(res.headers['retry-after']).toBe('60');
    expect(spooled).toBe(2);
    // The first file was in the spool while the second arrived, and is gone with the answer.
    expect(duringUpload).toBe(before.spool + 1);
    expect(await documents()).toBe(before.rows);
    expect(spoolFiles()).toBe(before.spool);
    expect(logged).toHaveLength(1);
    expect(logged[0]![0]).toMatchObject({ storage: 'NO_SPACE', err: { code: 'ENOSPC' } });
    expect(logged[0]![1]).toBe('storage failure');
  });

  it('answers 507 with the reason of each storage error when the files are moved into the store, and keeps nothing', async () => {
    for (const [code, errno, reason] of [
      ['EIO', -5, 'IO_ERROR'],
      ['EDQUOT', -122, 'QUOTA_EXCEEDED'],
      ['EROFS', -30, 'READ_ONLY'],
    ] as const) {
      inject('put', async () => {
        throw fsError(code, errno);
      });
      const before = { rows: await documents(), spool: spoolFiles() };
      const res = await upload();
      expect(res.status, JSON.stringify(res.body)).toBe(507);
      expect(res.body.errors).toEqual({ code: 'STORAGE_UNAVAILABLE', reason, retryAfterSeconds: 60 });
      expect(await documents()).toBe(before.rows);
      expect(spoolFiles()).toBe(before.spool);
      expect(logged.at(-1)![0]).toMatchObject({ storage: reason, err: { code } });
      for (const [method, fn] of original) (t.app.files as unknown as Record<string, unknown>)[method] = fn;
    }
  });

  it('stores the same upload once the storage is back', async () => {
    const before = await documents();
    const res = await upload();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await documents()).toBe(before + 2);
    expect(logged).toEqual([]);
  });
});
