// Redocly plugin: per-operation examples of the shared Idempotency-Key header. The header is one
// parameter (components/parameters/IdempotencyKey.yaml) that every keyed POST refers to, and a
// reference cannot carry an example of its own: every operation showed the same key, and a tool
// sending the examples (a key is used once) got 422 IDEMPOTENCY_KEY_REUSED from the second
// operation on. When the contract is bundled, the `idempotency-key` decorator puts a copy of the
// parameter into each operation that uses it, with an example of its own: a UUID v4 derived from
// the operationId (stable from one build to the next, distinct per operation).
import { createHash } from 'node:crypto';

const HEADER = 'idempotency-key';

/** A UUID v4 (version and variant bits set) from the digest of `seed`. */
function uuidFrom(seed) {
  const b = createHash('sha256').update(seed).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function idempotencyKey() {
  return {
    Operation: {
      leave(operation, ctx) {
        if (!Array.isArray(operation.parameters) || typeof operation.operationId !== 'string') return;
        operation.parameters = operation.parameters.map((parameter) => {
          const node = typeof parameter?.$ref === 'string' ? ctx.resolve(parameter).node : parameter;
          if (node?.in !== 'header' || String(node.name).toLowerCase() !== HEADER) return parameter;
          return Object.assign({}, node, { example: uuidFrom(`Idempotency-Key ${operation.operationId}`) });
        });
      },
    },
  };
}

export default function examples() {
  return { id: 'examples', decorators: { oas3: { 'idempotency-key': idempotencyKey } } };
}
