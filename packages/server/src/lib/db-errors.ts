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

/** True when the error is a foreign-key violation (23503), of `constraint` when given. */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return e.code === '23503' && (constraint === undefined || e.constraint === constraint);
}

/** True when the error is a check violation (23514). */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const e = pgError(error);
  return e.code === '23514' && (constraint === undefined || e.constraint === constraint);
}
