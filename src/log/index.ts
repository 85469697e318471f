export { createLogger, silentLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LoggerOptions, LogLevel, LogFormat, LogFields } from './logger.js';
export { installRedactingOutput, writeUnredacted } from './redacting-output.js';
