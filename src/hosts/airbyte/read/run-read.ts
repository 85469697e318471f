import { runConnector, type State } from '../../../connector/index.js';
import { ConfigurationError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { AirbyteSession } from '../session/index.js';
import { parseInputState, startingState, stateMessages, type InputState } from './airbyte-state.js';
import { readConfiguredCatalog, readJsonFile } from '../catalog/index.js';
import type { MessageOutput } from '../messages/index.js';
import { RecordDestination } from './record-destination.js';
import { StreamStatuses } from './stream-statuses.js';

/**
 * `airbyte read`: the one run (runConnector: authenticate → probe → update()), with the selected
 * streams' rows as RECORD messages and each op.checkpoint as STATE messages (one per stream) that
 * follow the records before them. Ends with STATEs when records were sent after the last checkpoint
 * (the last checkpointed state again, with their counts), so Airbyte's destination commits them;
 * STREAM_STATUS traces frame each stream (stream-statuses.ts).
 */
export async function runRead(context: {
  session: AirbyteSession;
  catalogPath?: string;
  statePath?: string;
  output: MessageOutput;
  log: Logger;
  registry: SecretRegistry;
}): Promise<void> {
  const { session, output, log, registry } = context;
  if (!context.catalogPath)
    throw new ConfigurationError('read needs the configured catalog', {
      code: 'catalog_missing',
      hint: 'pass --catalog FILE',
    });
  const selected = readConfiguredCatalog(context.catalogPath);
  const input: InputState = context.statePath
    ? parseInputState(readJsonFile(context.statePath, '--state', 'the state Airbyte saved, an array of state messages'))
    : { state: {} };
  const names = selected.map((s) => s.name);
  let last: State = startingState(input, selected, log);
  let checkpoints = 0;
  const statuses = new StreamStatuses(output, names);
  const destination = new RecordDestination(output, new Set(names), log, statuses);
  const sendState = (state: State) => {
    for (const message of stateMessages(state, names, destination.sinceCheckpoint)) output.send(message);
    for (const name of destination.sinceCheckpoint.keys()) destination.sinceCheckpoint.set(name, 0);
  };
  try {
    await runConnector({
      connector: session.connector,
      configuration: session.flatConfiguration,
      state: last,
      registry,
      host: {
        ...session.host,
        openDestination: async () => destination,
        state: {
          async save(_state, json) {
            // A copy: the connector may change its object after the checkpoint.
            last = JSON.parse(json) as State;
            sendState(last);
            checkpoints++;
            await output.flush();
          },
        },
      },
      onProbed: () => statuses.started(),
    });
  } catch (error) {
    statuses.ended('INCOMPLETE');
    throw error;
  }
  if (destination.pending > 0 || checkpoints === 0) sendState(last);
  statuses.ended('COMPLETE');
}
