import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { connect, openPGlite } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { seedDemoData } from '../../src/db/seed.js';
import { listOperations, loadContract } from '../../src/contract.js';
import { coveredOperations, resetCoverage } from './coverage.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A dumped PGlite data directory, migrated and seeded: each test file starts from a copy. */
    pgliteTemplate: string;
    /** The PostgreSQL template database, when DATABASE_URL is set. */
    postgresTemplate: string | null;
  }
}

/** Builds the migrated, seeded database once per run; test files copy it (PGlite dump, or a PostgreSQL template). */
export default async function setup(project: TestProject) {
  resetCoverage();
  const dir = mkdtempSync(join(tmpdir(), 'transport-ops-test-'));
  const pglite = openPGlite();
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  await seedDemoData(db);
  const dump = await pglite.dumpDataDir('none');
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  project.provide('pgliteTemplate', file);

  let postgresTemplate: string | null = null;
  const url = process.env.DATABASE_URL;
  if (url) {
    postgresTemplate = `transport_ops_template_${process.pid}`;
    const admin = connect({ kind: 'postgres', url, poolSize: 1 });
    await sql`drop database if exists ${sql.id(postgresTemplate)}`.execute(admin);
    await sql`create database ${sql.id(postgresTemplate)}`.execute(admin);
    const template = connect({ kind: 'postgres', url: withDatabase(url, postgresTemplate), poolSize: 1 });
    await migrateToLatest(template);
    await seedDemoData(template);
    await template.destroy();
    await admin.destroy();
  }
  project.provide('postgresTemplate', postgresTemplate);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (process.env.OPERATION_COVERAGE_GATE === '1') checkCoverage();
    if (url && postgresTemplate) {
      const admin = connect({ kind: 'postgres', url, poolSize: 1 });
      await sql`drop database if exists ${sql.id(postgresTemplate)} with (force)`.execute(admin);
      await admin.destroy();
    }
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The coverage gate: every operation of the contract must have been called by some test with a
 * success status and a response that validated against the contract (see support/app.ts `call`).
 */
function checkCoverage() {
  const all = listOperations(loadContract()).map((o) => o.operation.operationId as string);
  const covered = coveredOperations();
  const missing = all.filter((id) => !covered.has(id));
  console.log(
    `operation coverage: ${all.length - missing.length} / ${all.length} operations called with a success status and a contract-valid response`,
  );
  if (missing.length > 0) {
    throw new Error(`operations without a successful, contract-validated call in the tests (${missing.length}): ${missing.join(', ')}`);
  }
}
