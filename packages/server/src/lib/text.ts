/** `%text%` for ILIKE, with the pattern characters of the text (`\`, `%`, `_`) escaped to match literally. */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
