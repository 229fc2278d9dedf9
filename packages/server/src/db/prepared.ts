import { createHash } from 'node:crypto';

/**
 * Prepared statements on PostgreSQL, decided in one place for every query the API sends.
 *
 * A statement text seen before gets a name derived from a hash of its text: pg then parses it on
 * each connection once (PostgreSQL keeps its parse tree, and after a few runs may keep a generic
 * plan), and later runs send only Bind/Execute. Only data statements are named (not EXPLAIN, DDL
 * or transaction control). Distinct texts are unbounded in principle (an `in (...)` list of each
 * length is its own text), so both sides are capped: the texts remembered here (least recently
 * used forgotten first), and the statements prepared on one connection (past the cap, further
 * texts run unnamed on that connection, as before).
 */

/** Distinct statement texts remembered, with their names. */
export const REMEMBERED_TEXTS = 2000;
/** Named statements one connection prepares at most. */
export const PREPARED_PER_CONNECTION = 500;

const DATA_STATEMENT = /^\s*(select|with|insert|update|delete)\b/i;

/**
 * Marks a statement that must be planned for its parameter values on every run: it is never
 * named, so PostgreSQL plans it at Bind with the actual values (a custom plan). A named statement
 * may switch to a generic plan after five runs, and for the filtered pages and counts of lists the
 * generic plan can be ruinous: one filter value matches three rows, another a third of the table,
 * and one agent owns ten transports, another forty thousand (a loading-point filter: 1 ms custom,
 * 50 ms generic, measured on a million transports). Such statements pay their planning each time.
 */
export const CUSTOM_PLAN = '/* custom plan */ ';

/** `text` marked to be planned for its values on every run (see CUSTOM_PLAN). */
export const customPlan = (text: string) => `${CUSTOM_PLAN}${text}`;

/** Statement text -> its name (null: never named). */
const seen = new Map<string, string | null>();

/**
 * The name to prepare `text` under, or null to run it unnamed: a data statement gets its name
 * the second time its text is seen.
 */
export function statementName(text: string): string | null {
  if (text.startsWith(CUSTOM_PLAN)) return null;
  const name = seen.get(text);
  if (name !== undefined) {
    // Re-inserted: the Map's order is the recency order the cap evicts by.
    seen.delete(text);
    seen.set(text, name);
    return name;
  }
  if (seen.size >= REMEMBERED_TEXTS) seen.delete(seen.keys().next().value as string);
  seen.set(text, DATA_STATEMENT.test(text) ? `q_${createHash('sha1').update(text).digest('base64url')}` : null);
  return null;
}

/**
 * The name to send `text` under on a connection that has been sent the statement names `named`
 * (the client keeps them: pg's own record of prepared statements is internal): its statement name
 * when the text repeats and the connection has room for one more prepared statement (or has this
 * one already), else null.
 */
export function preparedName(named: ReadonlySet<string>, text: string): string | null {
  const name = statementName(text);
  if (name === null) return null;
  if (!named.has(name) && named.size >= PREPARED_PER_CONNECTION) return null;
  return name;
}
