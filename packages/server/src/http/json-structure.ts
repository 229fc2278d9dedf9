/**
 * Bounds on the shape of a JSON body, checked on its text before it is parsed: request validation
 * (ajv, with `allErrors`, compiled into every validator, precompiled ones included) does work and
 * reports errors in proportion to what a body holds, so a 10 MB body of 800,000 unknown fields
 * or a million empty arrays would cost seconds of CPU and an answer of tens of MB. No operation
 * takes a body anywhere near these bounds (its schema is stricter: the largest list it accepts
 * has 250 items), so they only stop such bodies early, before any object is built.
 */
export const JSON_LIMITS = {
  /** Members of one object. */
  fields: 100,
  /** Items of one array. */
  items: 1000,
  /** Objects and arrays inside one another. */
  depth: 32,
  /** Array items and object members of the whole body. */
  values: 10_000,
} as const;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/** Index of the quote that closes the string opened at `start` (the text's length if none). */
function endOfString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * The first bound of JSON_LIMITS that `text` breaks, as a message naming where (`body/tagIds has
 * more than 1000 items ...`), or null. One pass over the text that stops at the first breach; it
 * does not check the syntax (the parser that runs next does), and malformed text never throws.
 */
export function jsonStructureBreach(text: string, limits = JSON_LIMITS): string | null {
  // Per open container: whether it is an object, its members so far, its current key (objects)
  // and whether the next string is a key.
  const isObject: boolean[] = [];
  const members: number[] = [];
  const keys: string[] = [];
  const expectKey: boolean[] = [];
  let values = 0;
  const where = (levels: number) => {
    let path = 'body';
    for (let level = 0; level < levels; level++) path += `/${isObject[level] ? keys[level] : String(members[level]! - 1)}`;
    return path;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32) continue;
    const top = members.length - 1;
    if (top >= 0 && members[top] === 0 && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY) {
      members[top] = 1;
      if (++values > limits.values)
        return `body has more than ${limits.values} values in all (a JSON body holds at most ${limits.values} array items and object fields)`;
    }
    if (c === QUOTE) {
      const end = endOfString(text, i);
      if (top >= 0 && expectKey[top]) {
        keys[top] = text.slice(i + 1, Math.min(end, i + 51));
        expectKey[top] = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (members.length >= limits.depth)
        return `${where(0)} nests objects and arrays deeper than ${limits.depth} levels (at most ${limits.depth} in a JSON body)`;
      isObject.push(c === OPEN_OBJECT);
      members.push(0);
      keys.push('');
      expectKey.push(c === OPEN_OBJECT);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      isObject.pop();
      members.pop();
      keys.pop();
      expectKey.pop();
    } else if (c === COMMA && top >= 0) {
      const count = ++members[top]!;
      if (isObject[top]) {
        expectKey[top] = true;
        if (count > limits.fields)
          return `${where(top)} has more than ${limits.fields} fields (at most ${limits.fields} per object in a JSON body)`;
      } else if (count > limits.items) {
        return `${where(top)} has more than ${limits.items} items (at most ${limits.items} per array in a JSON body)`;
      }
      if (++values > limits.values)
        return `body has more than ${limits.values} values in all (a JSON body holds at most ${limits.values} array items and object fields)`;
    }
  }
  return null;
}
