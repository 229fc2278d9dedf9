import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The cheapest round trip to the database (the readiness probe). */
export const pingDatabase = (db: Kysely<Database>) => sql`select 1`.execute(db);
