import { readConfiguration } from '../../../config/index.js';
import { probeConnector } from '../../../connector/index.js';
import type { CallSecrets } from '../state/index.js';
import { failureLine } from './call-status.js';
import { PROBE_TEST } from './configuration-form.js';
import type { ServeContext } from '../serve-context.js';
import { fromForm } from './form-switches.js';

/**
 * Test: the probe as `debug` runs it (`probeConnector`, the start of the one run), on the
 * configuration of the request: secrets registered, the common, method and source keys validated,
 * the credential created, the connector's own keys parsed, one lightweight authenticated request,
 * and the connector's schema() read as an Update would read it. `success`, or `failure` with our one line
 * naming the key to fix; never an exception, so the platform shows the line to the user.
 *
 * A refresh token the server rotates during a Test cannot go anywhere durable (Test has no state):
 * it is kept in the server's memory (rotated-values.ts) and sealed into the state by the next Update.
 */

export interface TestRequestMessage {
  name?: string;
  configuration?: Record<string, string>;
}

export async function runTest(
  request: TestRequestMessage,
  context: ServeContext,
  registry: CallSecrets,
): Promise<{ success: true } | { failure: string }> {
  const log = context.log(registry);
  try {
    if (request.name && request.name !== PROBE_TEST.name) {
      return { failure: `unknown test '${request.name}': this connector has one test, '${PROBE_TEST.name}'` };
    }
    const { connector } = context;
    // The call's one read: secrets registered before anything else sees the request.
    const configuration = readConfiguration(fromForm(request.configuration ?? {}), {
      registry,
      connectorSecretKeys: connector.secretKeys ?? [],
    });
    const rotation = context.rotated.forCall(configuration.values, async (key) => {
      log.warning(
        `the authorization server rotated '${key}' during Test; Test cannot save it: the new value is kept in this server's memory ` +
          `and sealed into the connection's state by the next Update. If the server restarts before that Update, authorize again`,
      );
    });
    // The start of the one run, as debug and Airbyte's check run it: authenticate, the connector's own keys, the probe.
    // serve runs under the CLI's gate, and CallSecrets holds each form in the registry it reads.
    await probeConnector({ connector, configuration, host: { log, rotation, outputGated: true }, registry });
    log.info(`Test '${PROBE_TEST.name}' succeeded`);
    return { success: true };
  } catch (error) {
    const line = failureLine(error, registry);
    log.warning(`Test '${PROBE_TEST.name}' failed: ${line}`);
    return { failure: line };
  }
}
