/** A PostgreSQL error as both `pg` and PGlite report it. */
interface PgError {
  code?: string;
  constraint?: string;
}

const pgError = (error: unknown): PgError => (error !== null && typeof error === 'object' ? (error as PgError) : {});

/** True when the error is a unique violation (23505), of `constraint` when given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * True when the error is a foreign-key violation, of `constraint` when given: 23503, or 23001 when
 * a row is still referenced under ON DELETE RESTRICT.
 */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return (e.code === '23503' || e.code === '23001') && (constraint === undefined || e.constraint === constraint);
}

/** True when the error is a check violation (23514). */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return e.code === '23514' && (constraint === undefined || e.constraint === constraint);
}
