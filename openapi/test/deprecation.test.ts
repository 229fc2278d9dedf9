import { describe, expect, it } from 'vitest';
import { bundled, deref, METHODS } from './document.js';

const SIX_MONTHS_MS = 182 * 86_400_000;
const HEADERS = ['Deprecation', 'Sunset', 'Link'];

/** What the versioning and deprecation policy (the introduction) requires of every deprecated operation. */
function deprecationProblems(document: any): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op?.deprecated !== true) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const since = Date.parse(op['x-deprecated-at'] ?? '');
      if (Number.isNaN(since)) problems.push(`${where}: x-deprecated-at is missing or not a date`);
      if (op['x-sunset'] !== undefined && !(Date.parse(op['x-sunset']) - since >= SIX_MONTHS_MS))
        problems.push(`${where}: x-sunset must be at least six months after x-deprecated-at`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const declared = Object.keys(deref(response).headers ?? {});
        for (const header of HEADERS) if (!declared.includes(header)) problems.push(`${where} ${status}: declares no ${header} header`);
      }
    }
  }
  return problems;
}

describe('deprecated operations in the contract', () => {
  it('carry their dates and declare the Deprecation, Sunset and Link headers on every response', () => {
    expect(deprecationProblems(bundled)).toEqual([]);
  });

  it('are caught when a date or a header is missing (the check on a deprecated copy of an operation)', () => {
    const op = structuredClone(bundled.paths['/health'].get);
    const copy = { paths: { '/old': { get: Object.assign(op, { deprecated: true, 'x-sunset': '2027-01-01' }) } } };
    const problems = deprecationProblems(copy);
    expect(problems).toContain('GET /old: x-deprecated-at is missing or not a date');
    expect(problems).toContain('GET /old 200: declares no Deprecation header');
    const dated = { paths: { '/old': { get: Object.assign(structuredClone(op), { 'x-deprecated-at': '2026-12-01' }) } } };
    expect(deprecationProblems(dated)).toContain('GET /old: x-sunset must be at least six months after x-deprecated-at');
  });
});
