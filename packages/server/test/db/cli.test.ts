import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the migrate command', () => {
  it('runs in production without JWT_SECRET and lists every migration it applied, in order', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/db/cli.ts'), 'migrate'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        ALLOW_EMBEDDED_DATABASE: 'true',
        PGLITE_DATA_DIR: 'memory://',
        // It seals stored webhook secrets, so it needs their key (but no JWT_SECRET: it signs no token).
        WEBHOOK_SECRET_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const expected = readdirSync(join(root, 'src/db/migrations'))
      .filter((f) => /^\d{4}_.*\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(run.stdout.split('\n')[0]).toBe(`migrations applied: ${expected.join(', ')}`);
    expect(run.stdout).toMatch(/^reference data: \d+ rows added$/m);
  }, 300_000);
});
