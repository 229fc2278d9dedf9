/** Why bytes could not be stored or read back, as the contract's STORAGE_UNAVAILABLE tells it. */
export type StorageFailure = 'NO_SPACE' | 'QUOTA_EXCEEDED' | 'READ_ONLY' | 'IO_ERROR';

/** Seconds a client is told to wait (`Retry-After`) after a storage failure: freeing space takes an operator. */
export const STORAGE_RETRY_AFTER_SECONDS = 60;

// File system errors of the storage itself (not of the request: a missing file is ENOENT, handled apart).
const FILE_SYSTEM: Record<string, StorageFailure> = {
  ENOSPC: 'NO_SPACE',
  EDQUOT: 'QUOTA_EXCEEDED',
  EROFS: 'READ_ONLY',
  EIO: 'IO_ERROR',
};
// PostgreSQL's SQLSTATEs for the same (the database file store): disk_full, io_error.
const DATABASE: Record<string, StorageFailure> = { '53100': 'NO_SPACE', '58030': 'IO_ERROR' };

/**
 * The storage failure behind an error (its own code, or that of an error it wraps: multipart and
 * stream pipelines pass the file system's error on as `cause`), or null for any other error.
 */
export function storageFailure(error: unknown): StorageFailure | null {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = typeof current.code === 'string' ? current.code : undefined;
    if (code && (FILE_SYSTEM[code] ?? DATABASE[code])) return FILE_SYSTEM[code] ?? DATABASE[code]!;
    current = current.cause as typeof current;
  }
  return null;
}
