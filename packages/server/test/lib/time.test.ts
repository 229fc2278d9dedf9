import { createRequire } from 'node:module';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/db/connect.js';
import { iso, parseTimestamptz } from '../../src/lib/time.js';

// The parser pg ships for timestamptz (postgres-date, through pg-types), loaded from pg's own
// dependencies: the reference every text parseTimestamptz accepts is compared with.
const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'));
const parseDate = createRequire(fromPg.resolve('pg-types'))('postgres-date') as (text: string) => Date;

describe('iso', () => {
  it('equals toISOString for instants spread over years 0 to 9999, before and after 1970', () => {
    const min = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
    const max = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    let seed = 1;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const instants = [min, max, 0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_399_999 /* 2100-02-28T23:59:59.999 */];
    for (let i = 0; i < 200_000; i++) instants.push(min + Math.floor(random() * (max - min)));
    const wrong = instants.filter((t) => iso(new Date(t)) !== new Date(t).toISOString());
    expect(wrong).toEqual([]);
  });

  it('gives the six-digit form beyond year 9999 and refuses an invalid date, as toISOString does', () => {
    expect(iso(new Date(Date.UTC(10_000, 0, 1)))).toBe('+010000-01-01T00:00:00.000Z');
    expect(iso(new Date(Date.UTC(-1, 0, 1)))).toBe('-000001-01-01T00:00:00.000Z');
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError);
    expect(iso(null)).toBeNull();
    expect(iso('2026-11-27T10:00:00+02:00')).toBe('2026-11-27T08:00:00.000Z');
  });
});

describe('parseTimestamptz', () => {
  it('reads every three- and six-digit fraction as pg does (1000 x the fraction, truncated)', () => {
    const mismatches: string[] = [];
    for (let f = 0; f < 1_000_000; f++) {
      const six = `2026-11-27 15:31:57.${String(f).padStart(6, '0')}+00`;
      if (parseTimestamptz(six)!.getTime() !== parseDate(six).getTime()) mismatches.push(six);
      if (f < 1000) {
        const three = `2026-11-27 15:31:57.${String(f).padStart(3, '0')}+00`;
        if (parseTimestamptz(three)!.getTime() !== parseDate(three).getTime()) mismatches.push(three);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('applies offsets in hours, minutes and seconds, both signs', () => {
    const texts = [
      '2026-11-27 15:31:57+00',
      '2026-11-27 15:31:57.5+05:30',
      '2026-11-27 00:00:00.000001-03:30:15',
      '1999-12-31 23:59:59.999999-12',
      '2000-02-29 12:00:00+14',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999+00',
    ];
    for (const text of texts) expect(parseTimestamptz(text)?.toISOString(), text).toBe(parseDate(text).toISOString());
    expect(parseTimestamptz('2026-11-27 15:31:57+05:30')!.toISOString()).toBe('2026-11-27T10:01:57.000Z');
    expect(parseTimestamptz('2026-11-27 15:31:57-03:30:15')!.toISOString()).toBe('2026-11-27T19:02:12.000Z');
  });

  it("leaves what it does not read to pg's parser", () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0099-01-01 00:00:00+00',
      '12345-01-01 00:00:00+00',
      '2026-11-27 15:31:57+00 BC',
      '2026-11-27T15:31:57+00',
      '2026-11-27 15:31:57',
      '2026-11-27 15:31:57.+00',
      '2026-11-27 15:31:5x+00',
      '2026-11-27 15:31:57+0530',
    ])
      expect(parseTimestamptz(text), text).toBeUndefined();
  });

  it('is the parser pg uses for timestamptz, and reads what PostgreSQL sends in any session time zone', async (context) => {
    const url = process.env.DATABASE_URL;
    if (!url) return context.skip();
    expect(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)('2026-11-27 15:31:57.462517+05:30').toISOString()).toBe(
      '2026-11-27T10:01:57.462Z',
    );
    const db = connect({ kind: 'postgres', url, poolSize: 1 });
    try {
      const read = async () =>
        (
          await sql<{ recent: Date; ancient: Date; text: string }>`
            select timestamptz '2026-11-27 15:31:57.462517+00' as recent, timestamptz '0050-06-01 12:00:00+00' as ancient,
                   timestamptz '2026-11-27 15:31:57.462517+00'::text as text`.execute(db)
        ).rows[0]!;
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
        await sql`select set_config('timezone', ${zone}, false)`.execute(db);
        const row = await read();
        expect(iso(row.recent), zone).toBe('2026-11-27T15:31:57.462Z');
        expect(iso(row.ancient), zone).toBe('0050-06-01T12:00:00.000Z');
        // The text of the session's zone is one this parser reads itself (not the fallback).
        expect(parseTimestamptz(row.text)?.toISOString(), row.text).toBe('2026-11-27T15:31:57.462Z');
      }
    } finally {
      await db.destroy();
    }
  });
});
