import type { RunningEmulator } from '../../../emulator/index.js';
import { isLoopbackHost } from '../../../network/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { parseCommandArgs, portOption } from '../../parse-command-args.js';
import { stopSignal } from '../../stop-signal.js';

const HELP = `Usage: connector-auth emulator [--port N] [--host H] [--data FILE]
       connector-auth emulator --print-data > data.json

Serves both interfaces of the specification on one local port until Ctrl-C (SIGINT) or SIGTERM:
  pipeline management   {url}/v1/groups, {url}/v1/groups/<id>/connectors, {url}/v1/transformations/<id>/upgrade
  sync webhooks         {url}/api/v1/webhooks[/<id>]
  example REST API      {url}/example-api/v1/health, {url}/example-api/v1/items   (not in the specification:
                        what the rest-api template's configuration.local.json pages through)
  emulator control      {url}/_emulator/...   (no credentials; see docs/interfaces/emulator.md)

--data FILE     seed from a JSON file (format: see --print-data); the built-in data set otherwise
--print-data    write the built-in data set as JSON and exit
--port N        default: a free port
--host H        default 127.0.0.1; the control routes need no credentials, so think twice`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values } = parseCommandArgs('emulator', {
      args,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'print-data': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return (io.out(HELP), 0);
    const { startEmulator, defaultEmulatorData } = await import('../../../emulator/index.js');
    if (values['print-data']) {
      io.out(JSON.stringify(defaultEmulatorData(), null, 2));
      return 0;
    }
    const port = portOption('emulator', values.port, 0);
    const host = values.host ?? '127.0.0.1';
    if (!isLoopbackHost(host))
      io.log.warning(
        `listening on ${host}: the /_emulator control routes need no credentials and are reachable from the network`,
      );

    const emulator = await startEmulator({ port, host, ...(values.data ? { data: values.data } : {}) });
    announce(io, emulator);
    const signal = await stopSignal();
    await emulator.stop();
    io.err(`emulator stopped (${signal})`);
    return 0;
  },
};
export default command;

/** Where the emulator listens and the credentials to paste: one JSON object, or lines to read. */
function announce(io: CliIO, emulator: RunningEmulator): void {
  const c = emulator.credentials;
  const summary = {
    url: emulator.url,
    pipeline_base_url: emulator.pipelineUrl,
    webhook_base_url: emulator.webhookUrl,
    control_url: emulator.controlUrl,
    example_api_base_url: emulator.exampleApiUrl,
    // Demo credentials of a local emulator, printed on purpose so that they can be pasted.
    credentials: {
      api_key: c.apiKey,
      api_secret: c.apiSecret,
      webhook_token: c.webhookToken,
      example_api_token: emulator.exampleApiToken,
    },
    groups: emulator.store.groupCount,
    connectors: emulator.store.connectorCount,
  };
  if (io.json) io.out(JSON.stringify({ ok: true, ...summary }));
  else
    io.out(
      [
        `emulator listening on ${emulator.url}  (${summary.groups} groups, ${summary.connectors} connectors)`,
        `  pipeline base_url   ${emulator.pipelineUrl}     Basic  username=${c.apiKey}  password=${c.apiSecret}`,
        `  webhook base_url    ${emulator.webhookUrl}     Bearer token=${c.webhookToken}  (or Basic as above)`,
        `  example REST API    ${emulator.exampleApiUrl}     Bearer token=${emulator.exampleApiToken}  (the rest-api template's local target)`,
        `  control routes      ${emulator.controlUrl}/   (emulator only, no credentials)`,
        '',
        'try:',
        `  CONNECTOR_AUTH_BASE_URL=${emulator.url} CONNECTOR_AUTH_API_KEY=${c.apiKey} CONNECTOR_AUTH_API_SECRET=${c.apiSecret} connector-auth pipeline groups`,
        `  CONNECTOR_AUTH_BASE_URL=${emulator.url} CONNECTOR_AUTH_WEBHOOK_TOKEN=${c.webhookToken} connector-auth webhooks list`,
        'Ctrl-C stops it.',
      ].join('\n'),
    );
}
