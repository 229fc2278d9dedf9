/*
 * The error classes live in `lib/errors.ts`, below every layer that throws them (helpers, modules,
 * the request stages); this name stays for code of the binding layer that still imports it here.
 */
export { AppError, ListError, notFound } from '../lib/errors.js';
