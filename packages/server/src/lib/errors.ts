import type { ErrorCode, ErrorDetail } from '../contract.js';
import { errorStatuses } from '../contract.js';

type ContextOf<C extends ErrorCode> = Omit<Extract<ErrorDetail, { code: C }>, 'code'>;

const statuses = errorStatuses();

/**
 * A domain error: a contract error code with its context fields. The HTTP status comes from the
 * contract (`x-http-status` of the code's schema), so one table serves the docs and the server.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly statusCode: number;
  readonly detail: Extract<ErrorDetail, { code: C }>;

  constructor(code: C, context: ContextOf<C>, message: string) {
    super(message);
    this.name = 'AppError';
    const status = statuses.get(code);
    if (status === undefined) throw new Error(`error code ${code} has no x-http-status in the contract`);
    this.statusCode = status;
    this.detail = { code, ...context } as Extract<ErrorDetail, { code: C }>;
  }
}

/** Errors whose `errors` is a list of strings (validation, authentication). */
export class ListError extends Error {
  constructor(
    readonly statusCode: 400 | 401 | 403 | 409 | 503,
    message: string,
    readonly errors: string[],
  ) {
    super(message);
    this.name = 'ListError';
  }
}

export const notFound = {
  resource: (resource: string, id: number) =>
    new AppError('RESOURCE_NOT_FOUND', { resource, id }, `${resource[0]!.toUpperCase()}${resource.slice(1)} not found`),
};
