import { format } from 'node:util';
import { formatFields, loggerFrom, type LogFields, type Logger, type LogLevel } from '../../log/index.js';
import { secrets as processSecrets, redactedJson, type SecretRegistry } from '../../secrets/index.js';

/**
 * Logs as the partner SDK reads them: one JSON object a line on stdout,
 * `{"level", "message", "message-origin"}`, with the levels it accepts (INFO, WARNING, SEVERE).
 * `message-origin` is `sdk_connector` on every line, the one value the development guide allows a
 * source; the connector's own `log` (runConnector hands it `log.withOrigin('connector')`) and its
 * `console.*` are told apart in the message, which starts with `[connector] ` (as on Airbyte). Debug lines are
 * written only with --verbose, as INFO. Each message is redacted with the call's registry before it is
 * encoded (redact first, then shape), and the line again by the output gate with every running call's secrets.
 */

export const PARTNER_LEVEL: Record<LogLevel, 'INFO' | 'WARNING' | 'SEVERE'> = {
  debug: 'INFO',
  info: 'INFO',
  warning: 'WARNING',
  error: 'SEVERE',
  critical: 'SEVERE',
};

export interface PartnerLogOptions {
  registry?: SecretRegistry;
  verbose?: boolean;
  write?: (line: string) => void;
}

export function partnerLogger(
  options: PartnerLogOptions = {},
  origin: 'sdk_connector' | 'connector' = 'sdk_connector',
): Logger {
  const registry = options.registry ?? processSecrets;
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (level === 'debug' && !options.verbose) return;
    // Redact first, then shape: the message is redacted before JSON escapes it once more, so a
    // secret the connector itself escaped (twice, or as util.inspect quotes it) is still found.
    const said = registry.redact(origin === 'connector' ? `[connector] ${message}` : message);
    const text = `${said}${formatFields(fields, registry)}`;
    write(
      redactedJson({ level: PARTNER_LEVEL[level], message: text, 'message-origin': 'sdk_connector' }, registry) + '\n',
    );
  };
  // Our own lines stay ours whatever a layer calls itself; the connector's carry its prefix.
  return loggerFrom(emit, (next) => partnerLogger(options, next === 'connector' ? 'connector' : 'sdk_connector'));
}

/**
 * `console.log` and its kin, as connector code calls them, become `[connector]` lines too, so every
 * line on stdout is one the platform can parse. Returns the function that puts them back.
 */
export function routeConsole(log: Logger): () => void {
  const saved = {
    log: console.log,
    info: console.info,
    debug: console.debug,
    warn: console.warn,
    error: console.error,
  };
  const connector = log.withOrigin('connector');
  console.log = (...args: unknown[]) => connector.info(format(...args));
  console.info = console.log;
  console.debug = console.log;
  console.warn = (...args: unknown[]) => connector.warning(format(...args));
  console.error = (...args: unknown[]) => connector.error(format(...args));
  return () => Object.assign(console, saved);
}
