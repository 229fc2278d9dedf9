import { pino } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.js';

/*
 * The process's entry: the configuration, then tracing when the OTEL_* variables turn it on
 * (before the modules it instruments are loaded), then the server itself (start.ts).
 * Every line the process writes is JSON, as pino writes it: this one logs until the app's logger
 * takes over.
 */
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  // A mistake of the operator: one line naming the variable, no stack trace.
  pino().fatal(error instanceof ConfigError ? error.message : { err: error }, error instanceof ConfigError ? undefined : 'configuration');
  process.exit(1);
}
const log = pino({ level: config.logLevel });
const tracing = config.tracing.enabled ? await (await import('./tracing.js')).startTracing(config) : null;
if (tracing) log.info(`tracing on: OpenTelemetry traces of service ${config.tracing.serviceName} exported as the OTEL_* variables say`);
const { start } = await import('./start.js');
await start(config, log, tracing);
