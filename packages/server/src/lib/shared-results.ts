/**
 * Results that many requests share: a statistics answer reused from its cache is the same object
 * for every request that hits the entry. Serializing it again for each of them (a global report
 * lists every user: tens of kilobytes) cost more CPU than the rest of the request; its body is
 * kept with the object instead, made once by the route's own serializer (the contract's schema),
 * and sent as it is while the object lives. The object must not change once shared: the caches
 * that share results replace an entry, they never modify it.
 */
const shared = new WeakSet<object>();
const bodies = new WeakMap<object, { operationId: string; message: string; status: number; body: string }>();

/** Marks `value` as shared by the requests that receive it (objects only; other values pass as they are). */
export function shareResult<T>(value: T): T {
  if (typeof value === 'object' && value !== null) shared.add(value);
  return value;
}

/**
 * The body of the answer `operationId` gives with `result`, `message` and `status`, when `result`
 * is shared: the one kept for these, or `serialize()`'s, kept from now on. Undefined when `result`
 * is not shared (the caller serializes as usual).
 */
export function sharedBody(
  result: unknown,
  operationId: string,
  message: string,
  status: number,
  serialize: () => string,
): string | undefined {
  if (typeof result !== 'object' || result === null || !shared.has(result)) return undefined;
  const kept = bodies.get(result);
  if (kept && kept.operationId === operationId && kept.message === message && kept.status === status) return kept.body;
  const body = serialize();
  bodies.set(result, { operationId, message, status, body });
  return body;
}
