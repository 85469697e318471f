export { createLogger, silentLogger, loggerFrom, LOG_LEVELS, LEVEL_RANK } from './logger.js';
export { formatFields } from './format-fields.js';
export type { Logger, LoggerOptions, LogLevel, LogFormat, LogFields } from './logger.js';
export { installRedactingOutput, protectProcessOutput, writeUnredacted } from './redacting-output.js';
