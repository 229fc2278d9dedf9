/** ISO 8601 text of a timestamp column (the contract's `format: date-time`). */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
