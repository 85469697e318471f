import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';

describe('logger', () => {
  it('writes JSON lines in the SDK shape and redacts message and fields', () => {
    const registry = new SecretRegistry();
    registry.register('token', 'tok_live_123456');
    const lines: string[] = [];
    const log = createLogger({ format: 'json', write: (l) => lines.push(l), registry, level: 'debug' });
    log.debug('sending tok_live_123456', { header: `Bearer tok_live_123456` });
    log.withOrigin('connector').warning('careful');
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      level: 'DEBUG',
      message: 'sending <redacted:token>',
      header: 'Bearer <redacted:token>',
      message_origin: 'connector-auth',
    });
    expect(second).toMatchObject({ level: 'WARNING', message: 'careful', message_origin: 'connector' });
  });

  it('drops lines below the threshold', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l), level: 'warning' });
    log.info('hidden');
    log.error('shown');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ERROR\s+shown/);
  });
});
