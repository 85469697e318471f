import { runConnector, type State } from '../../../connector/index.js';
import { ConfigurationError, ConnectorError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import type { SecretRegistry } from '../../../secrets/index.js';
import type { AirbyteSession } from '../session/index.js';
import { parseInputState, startingState, stateMessage, type InputState } from './airbyte-state.js';
import { readConfiguredCatalog, readJsonFile } from '../catalog/index.js';
import type { MessageOutput } from '../messages/index.js';
import { RecordDestination } from './record-destination.js';

/**
 * `airbyte read`: the one run (runConnector: authenticate → probe → update()), with the selected
 * streams' rows as RECORD messages and each op.checkpoint as a STATE message that follows the
 * records before it. Ends with a STATE when records were sent after the last checkpoint (the last
 * checkpointed state again, with their count), so Airbyte's destination commits them.
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
  const destination = new RecordDestination(output, new Set(names), log);
  const result = await runConnector({
    connector: session.connector as never,
    configuration: session.flatConfiguration,
    state: last,
    log,
    registry,
    authenticate: { persistConfigurationValue: session.persistConfigurationValue },
    onProbed: (probe) =>
      log.info(`probe succeeded: ${probe.target} → ${probe.outcome} in ${Math.round(probe.elapsedMs)} ms`),
    openDestination: async () => destination,
    stateStore: {
      async save(state) {
        const json = JSON.stringify(state) ?? '';
        const keys = registry.labelsIn(json);
        if (keys.length > 0) {
          throw new ConnectorError(
            `refusing to send the state: it holds the value of secret configuration key(s) ${keys.map((k) => `'${k}'`).join(', ')} (Airbyte stores state unencrypted)`,
            {
              code: 'secret_in_state',
              hint: 'keep credentials out of op.checkpoint()',
            },
          );
        }
        // A copy: the connector may change its object after the checkpoint.
        last = JSON.parse(json) as State;
        output.send(stateMessage(last, names, destination.sinceCheckpoint));
        destination.sinceCheckpoint = 0;
        checkpoints++;
        await output.flush();
      },
    },
  });
  if (destination.sinceCheckpoint > 0 || checkpoints === 0)
    output.send(stateMessage(last, names, destination.sinceCheckpoint));
  const c = result.counts;
  log.info(
    `read: ${c.upserts} upserts, ${c.updates} updates, ${c.deletes} deletes, ${c.truncates} truncates, ${c.checkpoints} checkpoints`,
  );
}
