import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAdmin } from '../../src/db/admin.js';
import { useTestApp } from '../support/app.js';

const t = useTestApp();

const usersNamed = (username: string) => t.db.selectFrom('users').select(['id', 'role_id']).where('username', '=', username).execute();

describe('admin:create applies the password rules of the API', () => {
  it.each([
    ['equal to the username', 'root.admin', 'the password must not equal or contain the username or the e-mail'],
    ['equal to the e-mail, in capitals', 'ROOT.ADMIN@OPS.EXAMPLE', 'the password must not equal or contain the username or the e-mail'],
    ['containing the username', 'x-root.admin-2026', 'the password must not equal or contain the username or the e-mail'],
    ['ten spaces', ' '.repeat(10), 'the password must not be only whitespace'],
    ['a common password', 'password', 'the password must not be one of the 10000 most common passwords'],
    ['a common password of digits', '12345678', 'the password must not be one of the 10000 most common passwords'],
    ['shorter than 8 characters', 'Tr4ns!', 'the password must be 8 to 128 characters'],
    [
      "the demo accounts' password",
      'demo1234',
      "the password must not be the demo accounts' password (demo1234), which production refuses at login",
    ],
    [
      'the demo password in capitals',
      ' DEMO1234 ',
      "the password must not be the demo accounts' password (demo1234), which production refuses at login",
    ],
  ])('refuses a password %s, and creates nothing', async (_name, password, message) => {
    await expect(createAdmin(t.db, { username: 'root.admin', email: 'root.admin@ops.example', password })).rejects.toThrow(message);
    expect(await usersNamed('root.admin')).toEqual([]);
  });

  it('creates a super administrator with a sound password, who logs in through the API', async () => {
    const created = await createAdmin(t.db, { username: 'root.ops', email: 'root.ops@ops.example', password: 'Quai des Chargeurs 7' });
    expect(await usersNamed('root.ops')).toEqual([{ id: created.id, role_id: 1 }]);
    const login = await t.call('login', { body: { username: 'root.ops', password: 'Quai des Chargeurs 7' } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.result.user).toMatchObject({ id: created.id, username: 'root.ops', role_id: 1 });
  });
});

/** Runs `admin:create root.admin root.admin@ops.example` with ADMIN_PASSWORD=`password` on an in-memory database. */
function adminCreate(password: string) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const built = join(root, 'dist/db/cli.js');
  const args = existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'src/db/cli.ts')];
  return spawnSync(process.execPath, [...args, 'admin:create', 'root.admin', 'root.admin@ops.example'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', PGLITE_DATA_DIR: 'memory://', ADMIN_PASSWORD: password },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('the admin:create command', () => {
  it('refuses the demo password: exits non-zero naming the reason, before touching the database', () => {
    const run = adminCreate('demo1234');
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim()).toBe("the password must not be the demo accounts' password (demo1234), which production refuses at login");
    expect(run.stdout).not.toContain('migrations applied');
    expect(run.stdout).not.toContain('super administrator');
  }, 150_000);

  it('stops with one line naming the rule, without printing the password, before touching the database', () => {
    const run = adminCreate('Root.Admin');
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim()).toBe('the password must not equal or contain the username or the e-mail');
    expect(run.stdout).not.toContain('migrations applied');
    expect(`${run.stdout}${run.stderr}`).not.toContain('Root.Admin');
  }, 150_000);
});
