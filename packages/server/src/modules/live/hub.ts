import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { metrics } from '../../lib/metrics.js';
import { frameOfJson } from './events.js';
import { liveEventsAfter, releaseLiveLeases, renewLiveLeases, takeLiveLease } from './repository.js';

/** Events read per query when a stream catches up (a long replay reads page after page). */
const PAGE = 500;
/** A client that lets this much wait unsent is too slow: its stream is closed (it resumes with Last-Event-ID). */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** Seconds a refused client is told to wait. */
const RETRY_AFTER_SECONDS = 5;
/** How long a stream's lease lasts unless its instance extends it (three heartbeats, at least 45 s). */
export const leaseMs = (heartbeatMs: number) => Math.max(45_000, 3 * heartbeatMs);

export interface LiveLimits {
  perUser: number;
  max: number;
  heartbeatMs: number;
  maxStreamMs: number;
}

interface Subscriber {
  transportId: number;
  userId: number;
  /** The id of the last event sent (or of the snapshot): what comes next is greater. */
  cursor: number;
  out: PassThrough;
  /** When the server ends the stream (its maximum life, or the access token's expiry). */
  deadline: number;
  closed: boolean;
  /** Whether the credential that opened the stream still may read it (asked at each heartbeat). */
  recheck: () => Promise<boolean>;
  /** A recheck is in flight (not asked again before it answers). */
  checking: boolean;
  /** The stream's lease (live_stream_leases), which counts it against its user's limit on every instance. */
  leaseId: number;
}

/** A place held for one stream while it is being opened: `open` turns it into the stream, `release` gives it back. */
export interface Lease {
  open(stream: { transportId: number; cursor: number; first: string; expiresAt: Date; recheck: () => Promise<boolean> }): PassThrough;
  release(): void;
}

/**
 * The live streams of this instance. The limit per user holds across instances: each stream holds
 * a lease in the database (taken only while the user has fewer unexpired leases than the limit,
 * under a lock on the user), extended at every heartbeat and deleted when the stream ends; the
 * lease of a crashed instance stops counting when it expires. A stream whose lease could not be
 * extended in time (it expired: its place may have gone to another stream) is ended. The limit per
 * instance is counted here, in memory. Each transport with subscribers is pumped from the database
 * (`transport_live_events`, the source of truth) whenever a commit may have added to it: one query
 * per transport and wake, however many subscribers, each of which gets the events after its own
 * cursor. A wake during a pump runs one more pump after it, so a commit is never missed; ids grow
 * in commit order along one transport (0028), so a cursor never skips an event committed later.
 */
export class LiveHub {
  private readonly byTransport = new Map<number, Set<Subscriber>>();
  private readonly perUser = new Map<number, number>();
  private total = 0;
  /** The leases held by this instance: the stream of each once it is open (null while it is being opened). */
  private readonly leases = new Map<number, Subscriber | null>();
  /** Lease deletions in flight (awaited before the database closes). */
  private readonly releasing = new Set<Promise<void>>();
  /** This instance, as its leases name it. */
  readonly instance = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly leaseMs: number;
  private renewing = false;
  /** The instance's leases were given back as it shut down (a stream closing later has nothing to give back). */
  private settled = false;
  private readonly running = new Map<number, Promise<void>>();
  private readonly dirty = new Set<number>();
  /** Transports whose last pump failed (the database unreachable): pumped again at the next heartbeat. */
  private readonly failed = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly limits: LiveLimits,
    private readonly onError: (error: unknown) => void,
  ) {
    this.leaseMs = leaseMs(limits.heartbeatMs);
    this.timer = setInterval(() => this.tick(), limits.heartbeatMs);
    this.timer.unref();
  }

  /** Open streams of this instance (all, or of one user), counted until their lease is given back. */
  count(userId?: number): number {
    return userId === undefined ? this.total : (this.perUser.get(userId) ?? 0);
  }

  /**
   * Holds a place for a stream of `userId` (a lease in the database, counted on every instance),
   * or throws 429 LIVE_STREAM_LIMIT: scope USER when the user holds the limit on all instances
   * together, SERVER when this instance is full.
   */
  async reserve(userId: number): Promise<Lease> {
    const mine = this.perUser.get(userId) ?? 0;
    const { perUser, max } = this.limits;
    const userLimit = () => {
      metrics.liveStreamRefusals('USER');
      return new AppError(
        'LIVE_STREAM_LIMIT',
        { scope: 'USER', limit: perUser, retryAfterSeconds: RETRY_AFTER_SECONDS },
        `Too many live streams open for this user (at most ${perUser})`,
      );
    };
    // This instance alone holds the limit: no need to ask the database.
    if (mine >= perUser) throw userLimit();
    if (this.total >= max || this.closing) {
      metrics.liveStreamRefusals('SERVER');
      throw new AppError(
        'LIVE_STREAM_LIMIT',
        { scope: 'SERVER', limit: max, retryAfterSeconds: RETRY_AFTER_SECONDS },
        `Too many live streams open on this instance (at most ${max})`,
      );
    }
    // The place on this instance is held while the database is asked (another request may be asking too).
    this.perUser.set(userId, mine + 1);
    this.total++;
    const forget = () => {
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
      this.total--;
    };
    let leaseId: number | null;
    try {
      leaseId = await takeLiveLease(this.db, userId, this.instance, perUser, this.leaseMs);
    } catch (error) {
      forget();
      throw error;
    }
    if (leaseId === null) {
      forget();
      throw userLimit();
    }
    const id = leaseId;
    this.leases.set(id, null);
    metrics.liveStreamsOpen.inc();
    let held = true;
    // The place is counted here until the database has the lease back (a new stream of the same
    // user opened after `count` went down finds it gone); if the delete fails, the lease expires.
    const release = () => {
      if (!held) return;
      held = false;
      this.leases.delete(id);
      metrics.liveStreamsOpen.dec();
      if (this.settled) return forget();
      const done: Promise<void> = releaseLiveLeases(this.db, { ids: [id] })
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.releasing.delete(done);
          forget();
        });
      this.releasing.add(done);
    };
    return {
      release,
      open: ({ transportId, cursor, first, expiresAt, recheck }) => {
        const out = new PassThrough();
        const sub: Subscriber = {
          transportId,
          userId,
          cursor,
          out,
          deadline: Math.min(Date.now() + this.limits.maxStreamMs, expiresAt.getTime()),
          closed: false,
          recheck,
          checking: false,
          leaseId: id,
        };
        // Closed by either side (the client went away: Fastify destroys the stream; the server ended it).
        out.on('close', () => {
          sub.closed = true;
          const set = this.byTransport.get(transportId);
          set?.delete(sub);
          if (set?.size === 0) this.byTransport.delete(transportId);
          release();
        });
        out.on('error', () => undefined);
        out.write(first);
        let set = this.byTransport.get(transportId);
        if (!set) {
          set = new Set();
          this.byTransport.set(transportId, set);
        }
        set.add(sub);
        if (this.leases.has(id)) this.leases.set(id, sub);
        // Opened while the instance began to shut down (after its streams were ended): ended too.
        if (this.closing) this.end(sub);
        else void this.pump(transportId);
        return out;
      },
    };
  }

  /** A commit may have added events: of `transportId`, or of any transport (undefined: after a lost notification channel). */
  wake(transportId?: number): void {
    if (transportId === undefined) {
      for (const id of this.byTransport.keys()) void this.pump(id);
    } else if (this.byTransport.has(transportId)) {
      void this.pump(transportId);
    }
  }

  /** Sends what the transport's subscribers have not had yet; resolves when done (or failed). */
  pump(transportId: number): Promise<void> {
    const inFlight = this.running.get(transportId);
    if (inFlight) {
      this.dirty.add(transportId);
      return inFlight;
    }
    const run = this.drain(transportId)
      .then(() => this.failed.delete(transportId))
      .catch((error: unknown) => {
        this.failed.add(transportId);
        this.onError(error);
      })
      .finally(() => this.running.delete(transportId))
      .then(() => undefined);
    this.running.set(transportId, run);
    return run;
  }

  private async drain(transportId: number): Promise<void> {
    for (;;) {
      this.dirty.delete(transportId);
      const subs = this.byTransport.get(transportId);
      if (!subs || subs.size === 0) return;
      let from = Number.POSITIVE_INFINITY;
      for (const s of subs) from = Math.min(from, s.cursor);
      const rows = await liveEventsAfter(this.db, transportId, from, PAGE);
      for (const row of rows) {
        const text = frameOfJson(row.id, row.type, JSON.stringify(row.data));
        for (const s of subs) {
          if (s.closed || s.cursor >= row.id) continue;
          s.cursor = row.id;
          this.send(s, text);
        }
      }
      if (rows.length === PAGE) continue;
      if (!this.dirty.has(transportId)) return;
    }
  }

  private send(s: Subscriber, text: string): void {
    if (s.closed) return;
    s.out.write(text);
    metrics.liveEventsSent.inc();
    // Too slow: dropped at once (what waits would never be read); it resumes with Last-Event-ID.
    if (s.out.writableLength > MAX_UNSENT_BYTES) this.end(s, true);
  }

  /** Ends a stream: what was written is sent first, unless `now` (or it is not read within a second). */
  private end(s: Subscriber, now = false): void {
    if (s.closed && !now) return;
    s.closed = true;
    if (now) {
      s.out.destroy();
      return;
    }
    s.out.end();
    setTimeout(() => s.out.destroy(), 1000).unref();
  }

  /**
   * Heartbeat comments (proxies keep an active connection open), streams past their deadline
   * ended, streams whose credential was revoked, expired or lost its power ended, failed pumps
   * retried. A recheck that cannot reach the database keeps the stream (asked again next time).
   */
  private tick(): void {
    const now = Date.now();
    for (const subs of this.byTransport.values()) {
      for (const s of subs) {
        if (s.deadline <= now) this.end(s);
        else if (!s.closed) {
          s.out.write(': keep-alive\n\n');
          if (!s.checking) this.recheck(s);
        }
      }
    }
    for (const id of [...this.failed]) void this.pump(id);
    this.renewLeases();
  }

  /**
   * Extends this instance's leases; a stream whose lease was not extended (expired or deleted)
   * is ended at once, its client reconnects and takes a new place if the user still has one. A
   * database out of reach keeps the streams (asked again next heartbeat; a lease that expires
   * meanwhile ends its stream then).
   */
  private renewLeases(): void {
    // An instance without streams asks nothing (expired leases are also deleted by their user's next open).
    if (this.renewing || this.leases.size === 0) return;
    this.renewing = true;
    const ids = [...this.leases.keys()];
    renewLiveLeases(this.db, ids, this.leaseMs)
      .then((renewed) => {
        for (const id of ids) {
          if (renewed.has(id)) continue;
          const sub = this.leases.get(id);
          if (sub) this.end(sub, true);
        }
      }, this.onError)
      .finally(() => {
        this.renewing = false;
      });
  }

  private recheck(s: Subscriber): void {
    s.checking = true;
    s.recheck().then(
      (allowed) => {
        s.checking = false;
        if (!allowed) this.end(s);
      },
      (error: unknown) => {
        s.checking = false;
        this.onError(error);
      },
    );
  }

  /** Ends every stream at once (the instance shuts down: clients resume elsewhere) and refuses new ones. */
  closeAll(): void {
    this.closing = true;
    clearInterval(this.timer);
    for (const subs of this.byTransport.values()) for (const s of subs) this.end(s);
  }

  /** Waits for the pumps in flight and gives back every lease of this instance (before the database closes). */
  async settle(): Promise<void> {
    await Promise.all(this.running.values());
    await Promise.all(this.releasing);
    this.settled = true;
    // Streams not closed yet (their leases would otherwise count until they expire).
    if (this.leases.size > 0) await releaseLiveLeases(this.db, { instance: this.instance }).catch(this.onError);
  }
}
