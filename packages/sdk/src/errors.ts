import type { components } from '@transport-ops/contract';

export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ErrorDetail = components['schemas']['ErrorDetail'];
/** Every error code the API can answer with (`errors.code`). */
export type ErrorCode = ErrorDetail['code'];

/** A failed call: the HTTP status, the envelope, and its error code when `errors` is a coded object. */
export class ApiError extends Error {
  readonly status: number;
  readonly envelope: ErrorEnvelope;
  readonly code: ErrorCode | undefined;
  /** The coded error object with its context fields, when there is one. */
  readonly detail: ErrorDetail | undefined;

  constructor(status: number, envelope: ErrorEnvelope) {
    super(envelope.message);
    this.name = 'ApiError';
    this.status = status;
    this.envelope = envelope;
    const errors = envelope.errors as unknown;
    const coded = errors !== null && typeof errors === 'object' && !Array.isArray(errors) && typeof (errors as { code?: unknown }).code === 'string';
    this.detail = coded ? (errors as ErrorDetail) : undefined;
    this.code = this.detail?.code;
  }

  /** Narrows to one code, giving typed access to its context fields. */
  is<C extends ErrorCode>(code: C): this is ApiError & { code: C; detail: Extract<ErrorDetail, { code: C }> } {
    return this.code === code;
  }

  /** The validation messages (a list of strings) or field map, when that is the form of `errors`. */
  get messages(): string[] {
    const errors = this.envelope.errors as unknown;
    if (Array.isArray(errors)) return errors as string[];
    if (errors && typeof errors === 'object' && !this.detail) return Object.entries(errors).map(([k, v]) => `${k}: ${String(v)}`);
    return [this.envelope.message];
  }
}

function isEnvelope(value: unknown): value is ErrorEnvelope {
  return value !== null && typeof value === 'object' && (value as { success?: unknown }).success === false;
}

/**
 * Returns `result` of a successful call, or throws an ApiError:
 * `const page = unwrap(await api.GET('/trade/transports', { params: { query: { page: 1 } } }))`.
 */
export function unwrap<R>(response: { data?: { result: R }; error?: unknown; response: Response }): R {
  if (response.data !== undefined && response.response.ok) return response.data.result;
  const body = response.error;
  throw new ApiError(
    response.response.status,
    isEnvelope(body)
      ? body
      : { success: false, message: response.response.statusText || 'Request failed', result: null, errors: [String(body ?? '')], except: null },
  );
}
