import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

/*
 * Uploads are spooled to files while they arrive, in a directory of the process (`spool/<host>.<pid>.<random>`).
 * A process that dies during an upload leaves its spool files: the next process of the host
 * removes them before serving. Directories of a process still running, and of other hosts sharing
 * the volume, are left alone. A process that must exit with uploads in flight drops its spool.
 */

const host = hostname().replace(/[^A-Za-z0-9_-]/g, '_');
// A process that has exited: its id is free (the system does not hand it out again at once).
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
const dir = mkdtempSync(join(tmpdir(), 'transport-ops-spool-test-'));
const spool = join(dir, 'spool');
const leftBy = (name: string) => join(spool, name);

let t: TestApp;
beforeAll(async () => {
  for (const [name, file] of [
    [`${host}.${deadPid}.0a1b2c3d`, 'crashed.spool'],
    [`${host}.${process.ppid}.0a1b2c3d`, 'running.spool'],
    [`other-host.${deadPid}.0a1b2c3d`, 'elsewhere.spool'],
  ] as const) {
    mkdirSync(leftBy(name), { recursive: true });
    writeFileSync(join(leftBy(name), file), Buffer.alloc(1024, 1));
  }
  t = await createTestApp({ fileStore: { kind: 'directory', dir } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('spool files', () => {
  it('of a process of this host that is gone are removed at start; those of running processes and other hosts stay', async () => {
    expect(existsSync(leftBy(`${host}.${deadPid}.0a1b2c3d`))).toBe(false);
    expect(readdirSync(leftBy(`${host}.${process.ppid}.0a1b2c3d`))).toEqual(['running.spool']);
    expect(readdirSync(leftBy(`other-host.${deadPid}.0a1b2c3d`))).toEqual(['elsewhere.spool']);
    // The app still takes uploads afterwards (its own spool directory is made on the first one).
    const token = await t.token('agent');
    const form = new FormData();
    form.append('avatar', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'me.png');
    const request = new Response(form);
    const res = await t.call('uploadAvatar', {
      token,
      payload: Buffer.from(await request.arrayBuffer()),
      headers: { 'content-type': request.headers.get('content-type')! },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.avatar).toMatch(/avatar/);
  });

  it('of uploads still arriving are dropped at once when the process must exit', async () => {
    const source = new PassThrough();
    const spooling = t.app.files.spool(source).catch((error: Error) => error);
    source.write(Buffer.alloc(64 * 1024, 2));
    const own = () => readdirSync(spool).filter((name) => name.startsWith(`${host}.${process.pid}.`));
    for (let i = 0; i < 50 && own().every((name) => readdirSync(join(spool, name)).length === 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const mine = own();
    expect(mine).toHaveLength(1);
    expect(readdirSync(join(spool, mine[0]!))).toHaveLength(1);
    t.app.files.abandonSpool();
    expect(existsSync(join(spool, mine[0]!))).toBe(false);
    source.end();
    await spooling;
  });
});

// The smallest PNG (1x1, transparent).
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63fcffff3f0300050001ff6d0bf7b0000000049454e44ae426082',
  'hex',
);
