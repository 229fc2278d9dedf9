// Changelog sections at a release (`pnpm contract:release`): what was written under "## Unreleased"
// becomes the release's section, and an empty "## Unreleased" stays on top for the next changes.

/** `{ head, sections: [{ heading, body }] }`: the text before the first `## ` heading, then each `## ` section. */
export function sections(markdown) {
  const parts = markdown.split(/^(?=## )/m);
  const head = parts[0].startsWith('## ') ? '' : parts.shift();
  return {
    head,
    sections: parts.map((part) => {
      const end = part.indexOf('\n');
      return { heading: end < 0 ? part : part.slice(0, end), body: end < 0 ? '' : part.slice(end + 1).trim() };
    }),
  };
}

const isUnreleased = (heading) => /^## +Unreleased\b/i.test(heading);
/** A section written ahead for `version` (its heading names the version and no date): merged into the release. */
const isAhead = (heading, version) => new RegExp(`^## +${version.replace(/\./g, '\\.')}\\s*$`).test(heading);

/** Bodies joined, their `### ` subsections of the same heading merged (in order of first appearance). */
function mergeBodies(bodies) {
  const preamble = [];
  const subsections = new Map();
  for (const body of bodies) {
    const [first, ...rest] = body.split(/^(?=### )/m);
    if (first.startsWith('### ')) rest.unshift(first);
    else if (first.trim()) preamble.push(first.trim());
    for (const part of rest) {
      const end = part.indexOf('\n');
      const heading = (end < 0 ? part : part.slice(0, end)).trim();
      const text = end < 0 ? '' : part.slice(end + 1).trim();
      subsections.set(heading, [...(subsections.get(heading) ?? []), text].filter(Boolean));
    }
  }
  return [...preamble, ...[...subsections].map(([heading, texts]) => [heading, ...texts].join('\n'))].join('\n\n');
}

/**
 * The changelog after releasing `version` on `date`: the "Unreleased" section's body (and a section
 * written ahead for that version) under `## <version> (<date>)`, followed by `extra` (a generated
 * change list), and an empty "## Unreleased" above it when the changelog had one.
 */
export function releaseChangelog(markdown, version, date, extra = '') {
  const { head, sections: list } = sections(markdown);
  const hadUnreleased = list.some((s) => isUnreleased(s.heading));
  const moved = list.filter((s) => isUnreleased(s.heading) || isAhead(s.heading, version));
  const rest = list.filter((s) => !moved.includes(s));
  const body = [mergeBodies(moved.map((s) => s.body)), extra.trim()].filter(Boolean).join('\n\n');
  const out = [
    ...(hadUnreleased ? ['## Unreleased'] : []),
    `## ${version} (${date})${body ? `\n\n${body}` : ''}`,
    ...rest.map((s) => `${s.heading}${s.body ? `\n\n${s.body}` : ''}`),
  ];
  return `${head.trimEnd()}\n\n${out.join('\n\n')}\n`;
}
