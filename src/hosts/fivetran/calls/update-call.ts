import { readConfiguration, type RawConfiguration } from '../../../config/index.js';
import { runConnector, type State } from '../../../connector/index.js';
import { ExitCode, isConnectorAuthError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import { failureLine, statusOf } from './call-status.js';
import { CallSecrets, newerThanCarried, readRequestState } from '../state/index.js';
import type { ServeContext } from '../serve-context.js';
import { recordFilter, stoppingError, UpdateStream, type SelectionMessage, type UpdateCall } from '../records/index.js';
import { fromForm } from './form-switches.js';

/**
 * Update: the one run (`runConnector`: authenticate → probe → update()), its operations streamed
 * as records and checkpoints (update-stream.ts), resumed from the request's `state_json`. A
 * failure ends the stream with a gRPC status whose message is our redacted one line naming the
 * key; a stop asked by SIGTERM ends it UNAVAILABLE after the checkpoint it waited for; a client
 * that cancelled gets nothing more.
 *
 * A refresh token rotated by the authorization server goes, before it is used, into the server's
 * memory and into a checkpoint of the state already sent, sealed (connector-state.ts); a newer one
 * the server held before this call (rotated by a Test, or an Update whose state never came back)
 * is checkpointed the same way before anything else.
 */

export interface UpdateRequestMessage {
  configuration?: Record<string, string>;
  selection?: SelectionMessage;
  state_json?: string;
}

export async function runUpdate(call: UpdateCall, context: ServeContext): Promise<void> {
  const request = call.request as UpdateRequestMessage;
  const registry = new CallSecrets();
  const log = context.log(registry);
  let stream: UpdateStream | undefined;
  try {
    const { connector } = context;
    // The call's one read of its configuration. Secrets registered before the state is read:
    // whatever the state says must not be able to print one.
    const configuration = readConfiguration(fromForm(request.configuration ?? {}), {
      registry,
      connectorSecretKeys: connector.secretKeys ?? [],
    });
    const raw = configuration.values;
    const requestState = readRequestState(request.state_json, raw, context.rotated);
    const current = (stream = openStream(call, context, request, requestState.state, raw));
    if (newerThanCarried(raw, requestState, context.rotated)) {
      await current.carryRotated();
      log.info('a rotated credential this server held is now sealed in the state (checkpoint before the sync)');
    }
    await runConnector({
      connector,
      configuration,
      state: requestState.state,
      registry,
      host: {
        log,
        // serve runs under the CLI's gate, and CallSecrets holds each form in the registry it reads.
        outputGated: true,
        rotation: sealedRotation(context, raw, current, log),
        openDestination: async () => current.destination(),
        state: current.stateStore(),
        summaryNote: () => `${current.records} records and ${current.checkpoints} checkpoints sent`,
      },
    });
    call.end();
  } catch (error) {
    endFailed(call, context, { error, stream, registry, log });
  } finally {
    if (stream) context.updates.delete(stream);
    registry.release();
  }
}

/** The call's stream of records and checkpoints, known to the server (a shutdown stops it at a checkpoint). */
function openStream(
  call: UpdateCall,
  context: ServeContext,
  request: UpdateRequestMessage,
  state: State,
  raw: RawConfiguration,
): UpdateStream {
  const stream = new UpdateStream(call, {
    raw,
    rotated: context.rotated,
    filter: recordFilter(request.selection),
    state,
  });
  context.updates.add(stream);
  if (context.stopping()) stream.requestStop();
  return stream;
}

/** A rotated secret kept in the server's memory and sealed into a checkpoint sent at once. */
function sealedRotation(context: ServeContext, raw: RawConfiguration, stream: UpdateStream, log: Logger) {
  return context.rotated.forCall(raw, async (key) => {
    try {
      await stream.carryRotated();
      log.info(
        `the authorization server rotated '${key}'; the new value is sealed in the state of the checkpoint just sent`,
      );
    } catch {
      // The server's memory has it already; the next Update's first checkpoint carries it.
      log.warning(
        `the authorization server rotated '${key}', and the checkpoint carrying it could not be sent (the call ended): it is kept in this server's memory`,
      );
    }
  });
}

/**
 * How a failed call ends: nothing more for a client that cancelled; UNAVAILABLE after a shutdown's
 * checkpoint; else our one line as the status, with a Task for a refused refresh token.
 */
function endFailed(
  call: UpdateCall,
  context: ServeContext,
  {
    error,
    stream,
    registry,
    log,
  }: { error: unknown; stream: UpdateStream | undefined; registry: CallSecrets; log: Logger },
): void {
  if (stream?.cancelled) {
    log.warning(`Update cancelled by the client after ${stream.records} records and ${stream.checkpoints} checkpoints`);
    return;
  }
  // Stopped for shutdown: whatever the connector made of the stop, the sync ended at a checkpoint.
  const reason = stream?.stopped ? stoppingError() : error;
  const status = statusOf(reason, registry, context.grpc);
  if (stream?.stopped)
    log.info(`Update stopped for shutdown after ${stream.records} records and ${stream.checkpoints} checkpoints`);
  else log.error(`Update failed: ${failureLine(error, registry)}`);
  // A refused refresh token is fixed by a person only: a Task puts it on the dashboard as one.
  if (
    !stream?.stopped &&
    isConnectorAuthError(error) &&
    error.exitCode === ExitCode.authentication &&
    error.key === 'refresh_token'
  ) {
    call.write({
      task: {
        message: `${failureLine(error, registry)}. Authorize again (connector-auth authorize) and put the new refresh token in this connection's setup.`,
      },
    });
  }
  call.emit('error', Object.assign(new Error(status.details), status));
}
