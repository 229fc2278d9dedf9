import { type ForeignKeyName, type UniqueName, uniqueRule } from '../db/constraints.js';
import { AppError, ListError } from './errors.js';

/** A PostgreSQL error as both `pg` and PGlite report it. */
interface PgError {
  code?: string;
  constraint?: string;
  table?: string;
  column?: string;
  detail?: string;
}

const pgError = (error: unknown): PgError => (error !== null && typeof error === 'object' ? (error as PgError) : {});

/** True when the error is a unique violation (23505), of `constraint` when given (a name of db/constraints.ts). */
export function isUniqueViolation(error: unknown, constraint?: UniqueName): boolean {
  const e = pgError(error);
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * True when the error is a foreign-key violation, of `constraint` when given: 23503, or 23001 when
 * a row is still referenced under ON DELETE RESTRICT.
 */
export function isForeignKeyViolation(error: unknown, constraint?: ForeignKeyName): boolean {
  const e = pgError(error);
  return (e.code === '23503' || e.code === '23001') && (constraint === undefined || e.constraint === constraint);
}

/** True when the error is a check violation (23514). */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return e.code === '23514' && (constraint === undefined || e.constraint === constraint);
}

const singular = (table: string) =>
  table
    .replace(/_/g, ' ')
    .replace(/ies$/, 'y')
    .replace(/(ses|xes)$/, (m) => m.slice(0, -2))
    .replace(/s$/, '');

/** `Key (lower(email::text))=(Jane@x.org) already exists.` -> the value; the column when it is plain. */
function keyOf(detail: string | undefined): { column?: string; value?: string } {
  const match = /^Key \((.+?)\)=\((.*)\) (?:already exists|is not present|is still referenced)/.exec(detail ?? '');
  if (!match) return {};
  const column = /^[a-z_]+$/.test(match[1]!) ? match[1] : undefined;
  return { column, value: match[2] };
}

/**
 * Check constraints whose violation a client causes with values each valid alone: the answer names
 * the fields and the rule instead of the constraint.
 */
const CHECK_MESSAGES: Record<string, string> = {
  transports_total_product_value_max:
    'body/totalProductValue (productQuantity × averageUnitPrice when not sent) must be <= 1000000000000: send a smaller productQuantity or averageUnitPrice, or a totalProductValue',
};

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The contract error of a database error that no handler turned into one: unique -> 409
 * ALREADY_EXISTS, a reference to a missing row -> 404 RESOURCE_NOT_FOUND, a row still referenced
 * -> 409 RESOURCE_IN_USE, a check, not-null or value error -> 400 naming the column. Undefined for
 * anything else (a real server fault).
 */
export function contractErrorOf(error: unknown): AppError | ListError | undefined {
  const e = pgError(error);
  if (typeof e.code !== 'string') return undefined;
  const key = keyOf(e.detail);
  switch (e.code) {
    case '23505': {
      const rule = (e.constraint && uniqueRule(e.constraint)) || {
        resource: singular(e.table ?? 'record'),
        field: key.column ? camel(key.column) : (e.constraint ?? 'value'),
      };
      return new AppError(
        'ALREADY_EXISTS',
        Object.assign({}, rule, { value: key.value ?? '' }),
        `A ${rule.resource} with this ${rule.field} already exists`,
      );
    }
    case '23503':
    case '23001': {
      const id = Number(key.value);
      const validId = Number.isInteger(id) && id >= 1 && id <= 2147483647 ? id : 1;
      if (/is not present in table "(\w+)"/.test(e.detail ?? '')) {
        const resource = singular(/is not present in table "(\w+)"/.exec(e.detail!)![1]!);
        return new AppError('RESOURCE_NOT_FOUND', { resource, id: validId }, `${resource[0]!.toUpperCase()}${resource.slice(1)} not found`);
      }
      return new AppError(
        'RESOURCE_IN_USE',
        { resource: 'record', id: validId, usageCount: 1 },
        'The record is still referenced by other records',
      );
    }
    case '23514':
      return new ListError(400, 'Validation failed', [
        (e.constraint && CHECK_MESSAGES[e.constraint]) || `${e.constraint ?? 'value'} is not satisfied`,
      ]);
    case '23502':
      return new ListError(400, 'Validation failed', [`${e.column ? camel(e.column) : 'a field'} is required`]);
    case '22001':
      return new ListError(400, 'Validation failed', ['a text value is longer than its column allows']);
    case '22003':
      return new ListError(400, 'Validation failed', ['a number is out of the range its column holds']);
    case '22P02':
    case '22007':
    case '22008':
    case '22021':
    case '22P05':
      return new ListError(400, 'Validation failed', ['a value cannot be stored as sent']);
    default:
      return undefined;
  }
}
