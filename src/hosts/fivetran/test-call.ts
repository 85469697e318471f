import { checkFlatStringObject, parseKeys } from '../../config/index.js';
import { authenticate, type SourceClients } from '../../connector/index.js';
import type { CallSecrets } from './call-secrets.js';
import { failureLine } from './call-status.js';
import { PROBE_TEST } from './configuration-form.js';
import type { ServeContext } from './serve-context.js';

/**
 * Test: the probe as `debug` runs it, on the configuration of the request: secrets registered,
 * the common, method and source keys validated, the credential created, the connector's own keys
 * parsed, then one lightweight authenticated request. `success`, or `failure` with our one line
 * naming the key to fix; never an exception, so the platform shows the line to the user.
 *
 * A refresh token the server rotates during a Test cannot go anywhere durable (Test has no state):
 * it is kept in the server's memory (rotated-values.ts) and sealed into the state by the next Update.
 */

export interface TestRequestMessage {
  name?: string;
  configuration?: Record<string, string>;
}

export async function runTest(request: TestRequestMessage, context: ServeContext, registry: CallSecrets): Promise<{ success: true } | { failure: string }> {
  const log = context.log(registry);
  try {
    if (request.name && request.name !== PROBE_TEST.name) {
      return { failure: `unknown test '${request.name}': this connector has one test, '${PROBE_TEST.name}'` };
    }
    const { connector } = context;
    const raw = checkFlatStringObject(request.configuration ?? {});
    const rotation = context.rotated.forCall(raw, async (key) => {
      log.warning(
        `the authorization server rotated '${key}' during Test; Test cannot save it: the new value is kept in this server's memory ` +
          `and sealed into the connection's state by the next Update. If the server restarts before that Update, authorize again`,
      );
    });
    const auth = await authenticate(raw, {
      source: connector.source as keyof SourceClients,
      log,
      registry,
      connectorSecretKeys: new Set(connector.secretKeys ?? []),
      ...rotation,
    });
    try {
      if (connector.configuration) parseKeys(connector.configuration, raw, 'the connector');
      const probe = await auth.probe();
      log.info(`Test '${PROBE_TEST.name}' succeeded: ${probe.target} → ${probe.outcome} in ${Math.round(probe.elapsedMs)} ms`);
      return { success: true };
    } finally {
      await auth.close();
    }
  } catch (error) {
    const line = failureLine(error, registry);
    log.warning(`Test '${PROBE_TEST.name}' failed: ${line}`);
    return { failure: line };
  }
}
