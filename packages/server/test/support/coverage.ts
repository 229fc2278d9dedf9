import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where tests record the operations they called with a success status and a contract-valid response. */
export const coverageDir = join(process.cwd(), 'node_modules', '.cache', 'transport-ops-coverage');
const seen = new Set<string>();

export function recordCovered(operationId: string): void {
  if (seen.has(operationId)) return;
  seen.add(operationId);
  mkdirSync(coverageDir, { recursive: true });
  appendFileSync(join(coverageDir, `${process.pid}.txt`), `${operationId}\n`);
}
