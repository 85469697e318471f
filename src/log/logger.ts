import { redactedJson, secrets as defaultRegistry, type SecretRegistry } from '../secrets/index.js';
import { formatFields } from './format-fields.js';

/**
 * Levels and line formats follow the Python connector SDK, so logs read the same to its users:
 * in JSON each line is `{level, message, message_origin}` (plus `time` and any fields).
 */
export const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'pretty' | 'json';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warning(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  critical(message: string, fields?: LogFields): void;
  /** The same sink, labelled with another origin (the connector's own lines say `connector`). */
  withOrigin(origin: string): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go; stderr by default so that stdout stays for results. */
  write?: (line: string) => void;
  origin?: string;
  registry?: SecretRegistry;
  /** Colour the level in pretty lines (a terminal). */
  color?: boolean;
}

/** The order of the levels: a logger writes a line whose level ranks at or above its threshold. */
export const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40, critical: 50 };
const COLOR: Record<LogLevel, string> = {
  debug: '\x1b[90m',
  info: '\x1b[36m',
  warning: '\x1b[33m',
  error: '\x1b[31m',
  critical: '\x1b[41;97m',
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_RANK[options.level ?? 'info'];
  const format = options.format ?? 'pretty';
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const registry = options.registry ?? defaultRegistry;
  const color = options.color ?? false;

  const make = (origin: string): Logger => {
    const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
      if (LEVEL_RANK[level] < threshold) return;
      // Redact first, then encode: a message that already holds a JSON-escaped secret would come out
      // of JSON.stringify escaped twice, a Buffer field as a list of numbers (redact-then-shape.ts).
      const line =
        format === 'json'
          ? redactedJson(
              {
                level: level.toUpperCase(),
                message,
                message_origin: origin,
                time: new Date().toISOString(),
                ...fields,
              },
              registry,
            )
          : registry.redact(prettyLine(level, registry.redact(message), fields, color, registry));
      write(line + '\n');
    };
    return loggerFrom(emit, make);
  };
  return make(options.origin ?? 'connector-auth');
}

/** A Logger whose five levels all go to `emit`: every sink (a terminal, Airbyte, the partner SDK) is one. */
export function loggerFrom(
  emit: (level: LogLevel, message: string, fields?: LogFields) => void,
  withOrigin: (origin: string) => Logger,
): Logger {
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warning: (m, f) => emit('warning', m, f),
    error: (m, f) => emit('error', m, f),
    critical: (m, f) => emit('critical', m, f),
    withOrigin,
  };
}

function prettyLine(
  level: LogLevel,
  message: string,
  fields: LogFields | undefined,
  color: boolean,
  registry: SecretRegistry,
): string {
  const time = new Date().toISOString().slice(11, 19);
  const label = level.toUpperCase().padEnd(8);
  const tail = formatFields(fields, registry);
  return color ? `${time} ${COLOR[level]}${label}\x1b[0m ${message}${tail}` : `${time} ${label} ${message}${tail}`;
}

/** A logger that drops everything: the default for library use without a runner. */
export const silentLogger: Logger = createLogger({ write: () => undefined, level: 'critical' });
