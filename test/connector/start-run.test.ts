import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readConfiguration } from '../../src/config/index.js';
import { defineConnector, probeConnector, runConnector } from '../../src/connector/index.js';
import { ConfigurationError } from '../../src/errors/index.js';
import { createLogger } from '../../src/log/index.js';
import { SecretRegistry } from '../../src/secrets/index.js';
import { start, type HttpApiPeer } from '../peers/http-api.js';

/**
 * A sync (runConnector) and a test of the configuration (probeConnector: Airbyte's check and
 * discover, Fivetran's Test) start the same way, so a configuration one refuses the other refuses
 * too: here, a misspelt key of the connector's own, which the probe alone would not notice.
 */

const TOKEN = 'tok_start_run_7d1e';
const connector = defineConnector({
  source: 'rest',
  configuration: z.object({ items_path: z.string().default('items') }),
  update: () => undefined,
});

let peer: HttpApiPeer;
beforeAll(async () => {
  peer = await start({ auth: { kind: 'bearer', token: TOKEN } });
});
afterAll(async () => peer?.stop());

const configuration = () => ({
  auth_method: 'bearer',
  token: TOKEN,
  base_url: peer.url,
  probe_path: 'health',
  item_path: 'things',
});
/** What a host does first: the configuration read once, into the run's registry. */
const read = () => {
  const registry = new SecretRegistry();
  return { configuration: readConfiguration(configuration(), { registry }), registry };
};
const quiet = () => createLogger({ write: () => undefined });

describe('the start every run shares', () => {
  it('a misspelt key stops a test of the configuration as it stops a sync, naming the key meant', async () => {
    const tested = probeConnector({
      connector: connector as never,
      ...read(),
      host: { log: quiet() },
    });
    await expect(tested).rejects.toBeInstanceOf(ConfigurationError);
    await expect(tested).rejects.toThrow(/items_path/);
    const synced = runConnector({
      connector: connector as never,
      ...read(),
      state: {},
      host: {
        log: quiet(),
        openDestination: () => Promise.reject(new Error('not reached')),
        state: { save: () => Promise.resolve() },
      },
    });
    await expect(synced).rejects.toThrow(/items_path/);
  });
});
