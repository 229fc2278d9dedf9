import { AppError, ListError } from '../../lib/errors.js';

/**
 * The server's blocked-words list (CONTENT_MODERATED). Deliberately small and obvious: spam markers
 * that never belong in a transport-operations forum. A phrase matches case-insensitively as whole
 * words (any run of spaces between its words), so "Viagra" and "casino   bonus" match, "casinos" does not.
 */
export const BLOCKED_WORDS: readonly string[] = [
  'viagra',
  'cialis',
  'casino bonus',
  'online casino',
  'free bitcoin',
  'crypto giveaway',
  'payday loan',
  'buy followers',
  'work from home and earn',
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const patterns = BLOCKED_WORDS.map(
  (phrase) => new RegExp(`(?<![\\p{L}\\p{N}])${phrase.split(/\s+/).map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}])`, 'iu'),
);

export const isBlocked = (text: string) => {
  const normalized = text.normalize('NFKC');
  return patterns.some((pattern) => pattern.test(normalized));
};

/** Refuses the request when one of the texts contains a blocked word. */
export function assertClean(texts: Record<string, string | undefined>): void {
  for (const [field, text] of Object.entries(texts)) {
    if (text !== undefined && isBlocked(text)) {
      throw new AppError('CONTENT_MODERATED', { reason: `The ${field} contains a blocked word` }, 'Content was moderated');
    }
  }
}

/**
 * Trims a text field and applies its minimum length to the trimmed text (the schema's `minLength`
 * counts the spaces too).
 */
export function trimmed(field: string, value: string, minLength: number): string {
  const text = value.trim();
  if (text.length < minLength) {
    throw new ListError(400, 'Validation failed', [`body/${field} must NOT have fewer than ${minLength} characters`]);
  }
  return text;
}
