/** ISO 8601 text of a timestamp column (the contract's `format: date-time`). */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  // pg hands timestamps over as Dates already: no copy.
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
