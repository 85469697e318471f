import { ConnectorError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { State } from './table-definition.js';

/**
 * The state of a checkpoint as JSON, or a refusal: every host stores or sends the state
 * unencrypted (a file, Airbyte's platform, Fivetran's), so a state that holds a registered secret
 * never leaves the run. It must also be a JSON object, which every host reads back as one.
 */
export function checkedStateJson(state: State, registry: SecretRegistry): string {
  if (state === null || typeof state !== 'object' || Array.isArray(state))
    throw refusal('the state must be a JSON object', 'state_not_object', 'pass op.checkpoint({ … })');
  let json: string | undefined;
  try {
    json = JSON.stringify(state);
  } catch {
    json = undefined;
  }
  if (json === undefined)
    throw refusal('the state cannot be serialized to JSON', 'state_not_serializable', 'keep the state to JSON values');
  const keys = registry.labelsIn(json);
  if (keys.length > 0)
    throw refusal(
      `it holds the value of secret configuration key(s) ${keys.map((k) => `'${k}'`).join(', ')} (the state is stored unencrypted)`,
      'secret_in_state',
      'keep credentials out of op.checkpoint()',
    );
  return json;
}

function refusal(why: string, code: string, hint: string): ConnectorError {
  return new ConnectorError(`refusing to save the state: ${why}`, { code, hint });
}
