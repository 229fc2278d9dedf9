/**
 * What the process's tracing offers the layers below it. The OpenTelemetry SDK is loaded only when
 * the OTEL_* variables turn tracing on (src/tracing.ts installs a tracer here); otherwise each call
 * below is one null check, and no OpenTelemetry module is loaded at all.
 */
export interface ProcessTracer {
  /** A finished query, as a span of the trace active where it ran (the request's, a delivery's). */
  query(text: string, durationMs: number, error: unknown): void;
  /** Runs `work` inside a span of its own (a child of the active one, or a new trace). */
  span<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T>;
  /** `trace_id` and `span_id` of the active span, for log lines (empty outside any span). */
  logFields(): Record<string, string>;
}

let installed: ProcessTracer | null = null;

export function installTracer(tracer: ProcessTracer | null): void {
  installed = tracer;
}

/** The tracer when tracing is on, else null. */
export const activeTracer = (): ProcessTracer | null => installed;

/** Runs `work` in a span when tracing is on; runs it as is otherwise. */
export function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T> {
  return installed ? installed.span(name, attributes, work) : work();
}

/** Reports a finished query to the tracer, when there is one. */
export function traceQuery(text: string, durationMs: number, error: unknown): void {
  installed?.query(text, durationMs, error);
}
