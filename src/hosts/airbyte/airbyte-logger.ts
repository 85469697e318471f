import type { LogFields, Logger, LogLevel } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { MessageOutput } from './message-output.js';
import type { LogLevel as AirbyteLevel } from './protocol.js';

const LEVEL: Record<LogLevel, AirbyteLevel> = {
  debug: 'DEBUG',
  info: 'INFO',
  warning: 'WARN',
  error: 'ERROR',
  critical: 'FATAL',
};
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40, critical: 50 };

/**
 * The project's Logger, speaking LOG messages: every line connector-auth or the connector logs
 * reaches Airbyte's log as one LOG message. The text is redacted before it is encoded, so a
 * redaction can never cut through the JSON around it; the connector's own lines say so.
 */
export function airbyteLogger(output: MessageOutput, registry: SecretRegistry, level: LogLevel = 'info'): Logger {
  const threshold = RANK[level];
  const make = (origin: string): Logger => {
    const emit = (l: LogLevel, message: string, fields?: LogFields): void => {
      if (RANK[l] < threshold) return;
      const tail = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      const text = origin === 'connector' ? `[connector] ${message}${tail}` : `${message}${tail}`;
      output.send({ type: 'LOG', log: { level: LEVEL[l], message: registry.redact(text) } });
    };
    return {
      debug: (m, f) => emit('debug', m, f),
      info: (m, f) => emit('info', m, f),
      warning: (m, f) => emit('warning', m, f),
      error: (m, f) => emit('error', m, f),
      critical: (m, f) => emit('critical', m, f),
      withOrigin: make,
    };
  };
  return make('connector-auth');
}
