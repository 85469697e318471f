import {
  formatFields,
  LEVEL_RANK,
  loggerFrom,
  type LogFields,
  type Logger,
  type LogLevel,
} from '../../../log/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { MessageOutput } from './message-output.js';
import type { LogLevel as AirbyteLevel } from './protocol.js';

const LEVEL: Record<LogLevel, AirbyteLevel> = {
  debug: 'DEBUG',
  info: 'INFO',
  warning: 'WARN',
  error: 'ERROR',
  critical: 'FATAL',
};

/**
 * The project's Logger, speaking LOG messages: every line connector-auth or the connector logs
 * reaches Airbyte's log as one LOG message. The text is redacted before it is encoded, so a
 * redaction can never cut through the JSON around it; the connector's own lines say so.
 */
export function airbyteLogger(output: MessageOutput, registry: SecretRegistry, level: LogLevel = 'info'): Logger {
  const threshold = LEVEL_RANK[level];
  const make = (origin: string): Logger => {
    const emit = (l: LogLevel, message: string, fields?: LogFields): void => {
      if (LEVEL_RANK[l] < threshold) return;
      const tail = formatFields(fields, registry);
      const text = origin === 'connector' ? `[connector] ${message}${tail}` : `${message}${tail}`;
      output.send({ type: 'LOG', log: { level: LEVEL[l], message: registry.redact(text) } });
    };
    return loggerFrom(emit, make);
  };
  return make('connector-auth');
}
