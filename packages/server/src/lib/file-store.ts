import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';

/** Where a row's bytes are: in its `content` column, or in a file named by its `storage_key`. */
export interface StoredBytes {
  content: Uint8Array | null;
  storage_key: string | null;
}

/** The tables whose rows refer to stored files (`content` or `storage_key`). */
export const FILE_TABLES = ['transport_documents', 'complaint_attachments', 'proof_of_delivery_files'] as const;

/** A row to read: where it is (bytes in the database are read in slices), its size and key. */
export interface StoredRow {
  table: (typeof FILE_TABLES)[number];
  id: number;
  size: number;
  storage_key: string | null;
}

/**
 * Bytes in the database are read 256 kB at a time: node-pg decodes a whole bytea value at once on
 * the event loop (about 0.35 s for 10 MB), a slice takes a few milliseconds.
 */
const SLICE_BYTES = 256 * 1024;

async function slice(db: Kysely<Database>, row: StoredRow, offset: number): Promise<Uint8Array> {
  const found = await db
    .selectFrom(row.table)
    .select(sql<Uint8Array | null>`substring(content from ${offset + 1} for ${SLICE_BYTES})`.as('part'))
    .where('id', '=', row.id)
    .executeTakeFirst();
  if (!found?.part) throw new StoredFileMissing(`${row.table} ${row.id} holds no content`);
  return found.part;
}

async function readSlices(db: Kysely<Database>, row: StoredRow): Promise<Uint8Array | Readable> {
  const first = await slice(db, row, 0);
  if (first.length >= row.size) return first;
  async function* rest() {
    yield first;
    for (let offset = SLICE_BYTES; offset < row.size; offset += SLICE_BYTES) yield await slice(db, row, offset);
  }
  return Readable.from(rest(), { objectMode: false });
}

/**
 * An upload written to a spool file as it arrived, instead of being held in memory: its path, its
 * size and its first bytes (enough to recognise its type). `put` moves it into the store.
 */
export interface Spooled {
  path: string;
  size: number;
  head: Buffer;
}

/** The first bytes of an upload kept in memory: what file-type reads to recognise a format. */
const HEAD_BYTES = 4100;

/** The file of a row is not in the store (removed or lost outside the API, or another store's). */
export class StoredFileMissing extends Error {
  override name = 'StoredFileMissing';
}

/**
 * The bytes of uploaded documents and attachments. `directory` writes each file under a directory
 * (asynchronously, off the event loop) and keeps only a random key in the row; `database` keeps the
 * bytes in the row. Either store reads rows written by the other when it knows the directory.
 *
 * Writes go before the transaction that inserts the row (see `storeThen`); deletions are queued by a
 * trigger in `file_deletions` with the row's deletion and carried out by `sweep` after commit.
 */
export interface FileStore {
  readonly kind: 'directory' | 'database';
  /** The directory of the files, or null when this store has none (database store, no FILE_STORE_DIR). */
  readonly dir: string | null;
  /**
   * Keeps the bytes (or a spooled upload, moved: the spool file is gone afterwards), before a row
   * refers to them: returns the row's `content` and `storage_key`.
   */
  put(input: Uint8Array | Spooled): Promise<StoredBytes>;
  /**
   * Writes an upload stream to a spool file as it arrives (a failed or cut stream leaves no file).
   * Spool files live beside the store's files (`spool/`, so `put` is a rename), or in a temporary
   * directory for a store without one; `release` removes those never put, `removeOrphans` any a
   * crash left.
   */
  spool(source: Readable): Promise<Spooled>;
  /** Removes spool files that were not put (a rejected file, a failed request). */
  release(spooled: Spooled[]): Promise<void>;
  /**
   * Removes the spool files a previous process on this host left (it crashed or was killed during
   * an upload): the spool directories named after a process of this host that is gone, or after
   * this process's own id (a restarted container reuses it). Other hosts' directories, on a shared
   * volume, are left to `removeOrphans`. Returns how many files were removed.
   */
  removeStaleSpools(): Promise<number>;
  /**
   * Removes this process's spool directory at once, synchronously: the uploads still in flight when
   * the process must exit leave nothing behind (their rows were never written).
   */
  abandonSpool(): void;
  /** Removes the files of rows that were never committed. */
  discard(stored: StoredBytes[]): Promise<void>;
  /**
   * A row's bytes: a stream of its file (opened now: a missing file throws StoredFileMissing), or of
   * its `content` read in slices (one slice: the bytes themselves).
   */
  read(db: Kysely<Database>, row: StoredRow): Promise<Uint8Array | Readable>;
  /** Removes the files of deleted rows (queued in `file_deletions`); returns how many were queued. */
  sweep(db: Kysely<Database>): Promise<number>;
  /**
   * Removes files no row refers to and left-over partial writes, older than `minAgeMs` (a crash
   * between writing a file and committing its row leaves one); returns how many were removed.
   */
  removeOrphans(db: Kysely<Database>, minAgeMs: number): Promise<number>;
  /** Removes the directory when it is a temporary one of this process. */
  close(): Promise<void>;
}

/** Spool directories in the system's temporary directory start with this (then `<host>.<pid>.<random>`). */
const SPOOL_PREFIX = 'transport-ops-spool-';
/** This host's name, safe in a directory name. */
const hostTag = () => hostname().replace(/[^A-Za-z0-9_-]/g, '_');
/** A spool directory's name: this host, the process, and a random part (one per store of the process). */
const spoolName = (pid: number) => `${hostTag()}.${pid}.${randomBytes(4).toString('hex')}`;
function parseSpoolOwner(name: string): { host: string; pid: number } | null {
  const match = /^(.+)\.(\d+)\.[0-9a-f]+$/.exec(name);
  return match ? { host: match[1]!, pid: Number(match[2]) } : null;
}
/** Spool directories this process made (several apps of one process share them, as tests do). */
const ownSpools = new Set<string>();
/** Whether a process of this host still runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** 128 random bits, hex: unguessable, and safe in a path (checked again when read from a row). */
const KEY = /^[0-9a-f]{32}$/;

/** Creates the store the configuration asks for (a temporary directory when no directory is set). */
export function createFileStore(config: Config['fileStore']): FileStore {
  const temporary = config.kind === 'directory' && config.dir === null;
  const dir = temporary ? mkdtempSync(join(tmpdir(), 'transport-ops-files-')) : config.dir;
  const pathOf = (key: string) => {
    if (!KEY.test(key) || dir === null) throw new StoredFileMissing(`no file store holds the file ${key}`);
    // Two levels of fan-out keep directories small.
    return join(dir, key.slice(0, 2), key);
  };

  // Spool files beside the files (same file system: `put` renames), else in the system's temporary
  // directory; in a directory of this process either way (`<host>.<pid>.<random>`), so that the next process
  // knows which spool files nobody is writing any more.
  const spoolParent = dir === null ? tmpdir() : join(dir, 'spool');
  const spoolPrefix = dir === null ? SPOOL_PREFIX : '';
  let spoolDir: string | null = null;
  const spoolDirectory = async () => {
    if (spoolDir === null) {
      const candidate = join(spoolParent, `${spoolPrefix}${spoolName(process.pid)}`);
      await mkdir(candidate, { recursive: true });
      ownSpools.add(candidate);
      spoolDir = candidate;
    }
    return spoolDir;
  };

  return {
    kind: config.kind,
    dir,
    async put(input) {
      if (config.kind === 'database') {
        if (input instanceof Uint8Array) return { content: input, storage_key: null };
        const content = await readFile(input.path);
        await rm(input.path, { force: true });
        return { content, storage_key: null };
      }
      const key = randomBytes(16).toString('hex');
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      if (!(input instanceof Uint8Array)) {
        // The spool file is complete (its stream ended), and a rename is atomic: the key's file is whole.
        await rename(input.path, path);
        return { content: null, storage_key: key };
      }
      const bytes = input;
      // Written under a temporary name and renamed: a file under its key is always whole.
      const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
      try {
        await writeFile(partial, bytes, { flag: 'wx' });
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return { content: null, storage_key: key };
    },
    async spool(source) {
      const path = join(await spoolDirectory(), `${randomBytes(16).toString('hex')}.spool`);
      const head: Buffer[] = [];
      let headLength = 0;
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (headLength < HEAD_BYTES) {
            const part = chunk.subarray(0, HEAD_BYTES - headLength);
            head.push(part);
            headLength += part.length;
          }
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, measure, createWriteStream(path, { flags: 'wx' }));
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      return { path, size, head: Buffer.concat(head) };
    },
    async release(spooled) {
      await Promise.all(spooled.map((s) => rm(s.path, { force: true })));
    },
    async removeStaleSpools() {
      const entries = await readdir(spoolParent, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      let removed = 0;
      for (const entry of entries) {
        if (!entry.isDirectory() || !entry.name.startsWith(spoolPrefix)) continue;
        const owner = parseSpoolOwner(entry.name.slice(spoolPrefix.length));
        if (!owner || owner.host !== hostTag()) continue;
        if (owner.pid !== process.pid && alive(owner.pid)) continue;
        const path = join(spoolParent, entry.name);
        if (ownSpools.has(path)) continue;
        removed += (await readdir(path)).length;
        await rm(path, { recursive: true, force: true });
      }
      return removed;
    },
    abandonSpool() {
      if (spoolDir !== null) rmSync(spoolDir, { recursive: true, force: true });
    },
    async discard(stored) {
      await Promise.all(stored.map((s) => (s.storage_key ? rm(pathOf(s.storage_key), { force: true }) : undefined)));
    },
    async read(db, row) {
      if (row.storage_key === null) return readSlices(db, row);
      try {
        const handle = await open(pathOf(row.storage_key), 'r');
        return handle.createReadStream();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissing(`the file ${row.storage_key} is missing`);
        throw error;
      }
    },
    async sweep(db) {
      if (dir === null) return 0; // files of another store: left queued for a server that has them
      const rows = await db.selectFrom('file_deletions').select('storage_key').orderBy('queued_at').limit(500).execute();
      if (rows.length === 0) return 0;
      const keys = rows.map((r) => r.storage_key);
      await Promise.all(keys.filter((k) => KEY.test(k)).map((k) => rm(pathOf(k), { force: true })));
      await db.deleteFrom('file_deletions').where('storage_key', 'in', keys).execute();
      return keys.length;
    },
    async removeOrphans(db, minAgeMs) {
      if (dir === null) return 0;
      const before = Date.now() - minAgeMs;
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      const old: Array<{ path: string; key: string | null }> = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const path = join(entry.parentPath, entry.name);
        if ((await stat(path)).mtimeMs > before) continue;
        old.push({ path, key: KEY.test(entry.name) ? entry.name : null });
      }
      let removed = 0;
      for (let i = 0; i < old.length; i += 500) {
        const batch = old.slice(i, i + 500);
        const keys = batch.flatMap((f) => (f.key ? [f.key] : []));
        const known = new Set<string>();
        if (keys.length > 0) {
          for (const table of FILE_TABLES) {
            const rows = await db.selectFrom(table).select('storage_key').where('storage_key', 'in', keys).execute();
            for (const row of rows) if (row.storage_key) known.add(row.storage_key);
          }
        }
        for (const file of batch) {
          if (file.key !== null && known.has(file.key)) continue;
          await rm(file.path, { force: true });
          removed++;
        }
      }
      return removed;
    },
    async close() {
      if (temporary && dir) await rm(dir, { recursive: true, force: true });
      if (spoolDir !== null) {
        await rm(spoolDir, { recursive: true, force: true });
        ownSpools.delete(spoolDir);
      }
    },
  };
}

/**
 * Stores files, then runs `work` (the transaction that inserts their rows) with what was stored; when
 * `work` fails, the stored files are removed again, so a failed request leaves nothing behind.
 */
export async function storeThen<T>(
  store: FileStore,
  files: Array<Uint8Array | Spooled>,
  work: (stored: StoredBytes[]) => Promise<T>,
): Promise<T> {
  const stored: StoredBytes[] = [];
  try {
    for (const file of files) stored.push(await store.put(file));
    return await work(stored);
  } catch (error) {
    await store.discard(stored);
    throw error;
  }
}

/**
 * The bytes of a row for a download. A file missing from the store is the operator's problem (a
 * database restored without its files directory): it is logged, and the client gets `missing()`.
 */
export async function readStored(req: FastifyRequest, row: StoredRow, missing: () => Error): Promise<Uint8Array | Readable> {
  try {
    return await req.server.files.read(req.server.db, row);
  } catch (error) {
    if (!(error instanceof StoredFileMissing)) throw error;
    req.log.error({ err: error }, 'a stored file is missing from the file store');
    throw missing();
  }
}
