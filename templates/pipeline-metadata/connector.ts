import { defineConnector } from 'connector-auth';
import { PipelineClient, type Connector } from 'connector-auth/pipeline-api';

/**
 * Syncs the metadata of a pipeline management service — its groups and every connector in them — into
 * two tables. Before update() runs, connector-auth has read `username` (the API key) and `password`
 * (the API secret) from configuration.json, built the HTTP Basic credential and probed `probe_path`
 * (`v1/groups?limit=1`): a wrong secret stopped the run with exit code 3 and one line naming the key.
 *
 * `new PipelineClient(source)` reuses that authenticated source: same credential, TLS settings and
 * timeout. Its iterators follow `next_cursor` through every page (requesting the next page while this
 * one is written) and validate each record.
 */
export default defineConnector({
  source: 'rest',
  // The pipeline management interface takes an API key and secret as Basic: the one method offered.
  auth: ['basic'],
  // Every sync reads both lists whole (the state is not read back): hosts that let a user choose a
  // sync mode (Airbyte) offer a full refresh only, so a deleted connector does not linger downstream.
  schema: () => [
    { table: 'groups', primary_key: ['id'], incremental: false },
    { table: 'connectors', primary_key: ['id'], incremental: false },
  ],

  async update({ source, op, log }) {
    const client = new PipelineClient(source);
    let groups = 0;
    let connectors = 0;
    for await (const group of client.groups({ limit: 1000 })) {
      await op.upsert('groups', group);
      groups++;
      for await (const connector of client.connectors(group.id, { limit: 1000 })) {
        await op.upsert('connectors', flatten(connector));
        connectors++;
      }
    }
    log.info(`synced ${groups} group(s) and ${connectors} connector(s)`);
    await op.checkpoint({ synced_at: new Date().toISOString() });
  },
});

/**
 * One row per connector: the states as their own columns, nested values as JSON. The connect-card
 * token is left out: it lets anyone holding it set the connector up, and connector-auth refuses to
 * write a registered secret into the warehouse anyway.
 */
function flatten(c: Connector): Record<string, unknown> {
  return {
    id: c.id,
    group_id: c.group_id,
    service: c.service,
    service_version: c.service_version === undefined ? null : String(c.service_version),
    schema: c.schema,
    paused: c.paused,
    setup_state: c.status.setup_state,
    sync_state: c.status.sync_state,
    update_state: c.status.update_state,
    is_historical_sync: c.status.is_historical_sync ?? false,
    schema_status: c.status.schema_status ?? null,
    tasks: c.status.tasks ?? [],
    warnings: c.status.warnings ?? [],
    config: c.config ?? {},
    daily_sync_time: c.daily_sync_time ?? null,
    succeeded_at: c.succeeded_at ?? null,
    failed_at: c.failed_at ?? null,
    connect_card_uri: c.connect_card?.uri ?? null,
    sync_frequency: c.sync_frequency,
    pause_after_trial: c.pause_after_trial ?? null,
    connected_by: c.connected_by ?? null,
    setup_tests: c.setup_tests ?? [],
    created_at: c.created_at,
    schedule_type: c.schedule_type ?? null,
    redirect_uri: c.connect_card_config?.redirect_uri ?? null,
    hide_setup_guide: c.connect_card_config?.hide_setup_guide ?? null,
  };
}
