import type { components } from './schema.js';

export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type ErrorDetail = components['schemas']['ErrorDetail'];
/** Every error code the API can answer with (`errors.code`). */
export type ErrorCode = ErrorDetail['code'];

/** Any failure of a call made through the SDK; `requestId` is the `x-request-id` the call was sent with. */
export class TransportOpsError extends Error {
  readonly requestId: string | undefined;
  constructor(message: string, requestId: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportOpsError';
    this.requestId = requestId;
  }
}

/** The API answered with an error: the HTTP status, the envelope, and its code when `errors` is a coded object. */
export class ApiError extends TransportOpsError {
  readonly status: number;
  readonly envelope: ErrorEnvelope;
  readonly code: ErrorCode | undefined;
  /** The coded error object with its context fields, when there is one. */
  readonly detail: ErrorDetail | undefined;

  constructor(status: number, envelope: ErrorEnvelope, requestId?: string) {
    super(envelope.message, requestId);
    this.name = 'ApiError';
    this.status = status;
    this.envelope = envelope;
    const errors = envelope.errors as unknown;
    const coded =
      errors !== null && typeof errors === 'object' && !Array.isArray(errors) && typeof (errors as { code?: unknown }).code === 'string';
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

/** The request never got an answer (connection refused or reset, DNS failure, CORS refusal, abort). */
export class NetworkError extends TransportOpsError {
  constructor(message: string, requestId: string | undefined, cause?: unknown) {
    super(message, requestId, { cause });
    this.name = 'NetworkError';
  }
}

/** No answer within the timeout (per attempt); `timeoutMs` is that timeout. */
export class TimeoutError extends NetworkError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, requestId: string | undefined, cause?: unknown) {
    super(`No answer within ${timeoutMs} ms`, requestId, cause);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

function isEnvelope(value: unknown): value is ErrorEnvelope {
  return value !== null && typeof value === 'object' && (value as { success?: unknown }).success === false;
}

/** The ApiError of a failed response, whatever its body (an envelope, or not: a proxy's page). */
export function apiError(response: Response, body: unknown): ApiError {
  const envelope: ErrorEnvelope = isEnvelope(body)
    ? body
    : {
        success: false,
        message: response.statusText || `HTTP ${response.status}`,
        result: null,
        errors: [String(body ?? '')],
        except: null,
      };
  return new ApiError(response.status, envelope, response.headers.get('x-request-id') ?? undefined);
}

/**
 * Returns `result` of a successful call, or throws an ApiError:
 * `const page = unwrap(await api.GET('/trade/transports', { params: { query: { page: 1 } } }))`.
 */
export function unwrap<R>(response: { data?: { result: R }; error?: unknown; response: Response }): R {
  if (response.data !== undefined && response.response.ok) return response.data.result;
  throw apiError(response.response, response.error);
}
