import { defineConnector, z } from 'connector-auth';

/**
 * A REST API connector. Before update() runs, connector-auth has already read the credentials from
 * configuration.json, built the auth method named by `auth_method`, and probed `probe_path`: wrong
 * credentials stopped the run with one line naming the key to fix.
 *
 * The API is expected to answer GET <items_path>?cursor=… with either a JSON array of objects that
 * have an `id`, or `{ "items": [...], "next_cursor": "…" }`. Adapt `update()` to your API.
 */
export default defineConnector({
  source: 'rest',
  // The auth methods this connector offers: the Fivetran form, the Airbyte spec and `validate` offer
  // only these. Name your API's (another the rest source accepts: docs/auth/), or leave `auth` out for all.
  auth: ['bearer', 'api_key', 'basic', 'oauth2_client_credentials', 'oauth2_refresh_token'],
  // The connector's own keys: strings in configuration.json, typed here.
  configuration: z.object({
    items_path: z.string().default('items'),
  }),
  // The columns of the example API's items (`connector-auth emulator`, README.md): declare your API's.
  // Declared columns are typed downstream; Airbyte's acceptance tests also refuse a record column the
  // stream does not declare. The API has no "changed since" filter, so each sync reads the list whole
  // (`incremental: false`: Airbyte offers a full refresh only, and rows deleted at the source do not
  // linger there); the page cursor in the state only resumes a sync that was interrupted.
  schema: () => [
    {
      table: 'items',
      primary_key: ['id'],
      columns: { id: 'LONG', name: 'STRING', price: 'DOUBLE', in_stock: 'BOOLEAN', updated_at: 'UTC_DATETIME' },
      incremental: false,
    },
  ],

  async update({ configuration, state, source, op, log }) {
    let cursor = typeof state.cursor === 'string' ? state.cursor : undefined;
    let pages = 0;
    do {
      const path = cursor ? `${configuration.items_path}?cursor=${encodeURIComponent(cursor)}` : configuration.items_path;
      // source.json: authenticated, joined to base_url, bounded by timeout_seconds; non-2xx throws.
      const body = await source.json<unknown>(path);
      const page = Array.isArray(body) ? { items: body, next_cursor: undefined } : (body as { items: unknown[]; next_cursor?: string });
      for (const item of page.items) await op.upsert('items', item as Record<string, unknown>);
      pages++;
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
      // Saving the cursor lets an interrupted sync resume where it stopped.
      await op.checkpoint({ cursor });
    } while (cursor);
    log.info(`synced ${pages} page(s) of ${configuration.items_path}`);
    // The list is read whole: the next sync starts from its first page again.
    await op.checkpoint({ cursor: null, synced_at: new Date().toISOString() });
  },
});
