/**
 * The methods a path has, for the 405 of a known path asked with a method it does not have
 * (RFC 9110 §15.5.6: the answer lists them in `Allow`).
 *
 * Fastify's router says only "no route" for a method a path lacks, so the routes are collected as
 * they are added and a request's path is matched against them as the router would: segment by
 * segment, a literal segment winning over a parameter (`/trade/transports/vehicle-types` is its
 * own path, not `/trade/transports/{id}` with the id `vehicle-types`). Only the paths of 404
 * answers are matched, so a linear scan over the few hundred routes costs nothing on the
 * requests that succeed.
 */
interface Template {
  /** Literal segments as strings, parameters as null. */
  segments: (string | null)[];
  methods: Set<string>;
}

/** Methods every path answers: HEAD beside each GET (Fastify exposes it), OPTIONS everywhere (preflights). */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof ORDER)[number];

const split = (path: string) => path.replace(/\/+$/, '').split('/').slice(1);

export interface AllowedMethods {
  /** Records a route (Fastify's `:param` syntax); wildcard routes (`*`) name no path and are skipped. */
  add(method: string | string[], url: string): void;
  /** The methods of the path `url` (query ignored), in a stable order; null for a path no route has. */
  of(url: string): Method[] | null;
}

export function allowedMethods(): AllowedMethods {
  const templates = new Map<string, Template>();
  return {
    add(method, url) {
      if (url.includes('*')) return;
      const key = split(url)
        .map((s) => (s.startsWith(':') ? ':' : s))
        .join('/');
      let template = templates.get(key);
      if (!template) {
        template = { segments: split(url).map((s) => (s.startsWith(':') ? null : s)), methods: new Set() };
        templates.set(key, template);
      }
      for (const m of Array.isArray(method) ? method : [method]) template.methods.add(m.toUpperCase());
    },
    of(url) {
      const path = url.split('?')[0] ?? url;
      let segments: string[];
      try {
        segments = split(path).map((s) => decodeURIComponent(s));
      } catch {
        return null;
      }
      let best: Template | null = null;
      for (const template of templates.values()) {
        if (template.segments.length !== segments.length) continue;
        if (!template.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) continue;
        if (best === null || moreLiteral(template, best)) best = template;
      }
      if (best === null) return null;
      const methods = new Set(best.methods);
      if (methods.has('GET')) methods.add('HEAD');
      methods.add('OPTIONS');
      return ORDER.filter((m) => methods.has(m));
    },
  };
}

/** True when `a` has a literal segment where `b` first has a parameter (the router's precedence). */
function moreLiteral(a: Template, b: Template): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const literalA = a.segments[i] !== null;
    const literalB = b.segments[i] !== null;
    if (literalA !== literalB) return literalA;
  }
  return false;
}
