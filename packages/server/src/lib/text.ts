import { sql, type SqlBool } from 'kysely';

/** `%text%` for ILIKE, with the pattern characters of the text (`\`, `%`, `_`) escaped to match literally. */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** Case-insensitive "contains" as a SQL condition, without LIKE wildcards to escape. */
export const contains = (column: string, text: string) => sql<SqlBool>`strpos(lower(${sql.ref(column)}), lower(${text})) > 0`;
