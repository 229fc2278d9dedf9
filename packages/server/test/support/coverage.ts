import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where tests record the operations they called with a success status and a contract-valid response. */
export const coverageDir = fileURLToPath(new URL('../../node_modules/.cache/operation-coverage', import.meta.url));
const seen = new Set<string>();

export function recordCovered(operationId: string): void {
  if (seen.has(operationId)) return;
  seen.add(operationId);
  mkdirSync(coverageDir, { recursive: true });
  appendFileSync(join(coverageDir, `${process.pid}.txt`), `${operationId}\n`);
}

export function resetCoverage(): void {
  rmSync(coverageDir, { recursive: true, force: true });
}

export function coveredOperations(): Set<string> {
  const covered = new Set<string>();
  let files: string[] = [];
  try {
    files = readdirSync(coverageDir);
  } catch {
    return covered;
  }
  for (const file of files) {
    for (const id of readFileSync(join(coverageDir, file), 'utf8').split('\n')) if (id) covered.add(id);
  }
  return covered;
}
