import { authorizeProject } from '../../../project/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { openBrowser } from '../../open-browser.js';
import { argumentError, PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth authorize [project] [--configuration FILE] [--device] [--timeout SECONDS] [--open | --no-open] [--json]

Obtains the refresh token of auth_method oauth2_refresh_token: you sign in and consent in a browser,
which comes back to a loopback redirect URI (redirect_uri, default http://127.0.0.1/callback on any
free port); the code is exchanged with PKCE at token_url, and the refresh token is written into the
configuration (atomically, nothing else changed). Needs authorization_url; scope and
authorization_parameters say what to ask for (e.g. offline_access, or access_type=offline&prompt=consent).

With --device (or with device_authorization_url and no authorization_url), the device flow
(RFC 8628) instead: you open the printed address on any device and enter the code shown.

  --device            the device flow: nothing needs to reach this machine
  --timeout SECONDS   how long to wait for the browser, or for the code to be approved (default 300)
  --open / --no-open  open the URL in a browser ($BROWSER, else the system's); default: on a terminal`;

const DEFAULT_TIMEOUT_SECONDS = 300;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('authorize', {
      args,
      allowPositionals: true,
      allowNegative: true,
      options: {
        ...PROJECT_OPTIONS,
        timeout: { type: 'string' },
        open: { type: 'boolean' },
        device: { type: 'boolean' },
      },
    });
    if (values.help) return (io.out(HELP), 0);
    const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
    if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 3600)
      throw argumentError('authorize', '--timeout must be a number of seconds above 0 and at most 3600');
    const open = values.open ?? (Boolean(process.stdin.isTTY) && io.stderrIsTTY);

    const result = await authorizeProject({
      ...projectLocation(positionals, values),
      log: io.log,
      handoff: {
        timeoutMs: timeout * 1000,
        ...(values.device ? { flow: 'device' as const } : {}),
        open(url, device) {
          // A person must see the URL whatever the output mode: in JSON it is a field of a log line.
          const opening = open ? ' (opening it now)' : '';
          if (device) {
            if (io.json)
              io.log.info('open the verification URL and enter the code', {
                verification_uri: device.verificationUri.href,
                user_code: device.userCode,
                verification_uri_complete: url.href,
              });
            else
              io.err(
                `\nTo authorize, open ${device.verificationUri.href} in a browser on any device${opening} and enter the code:\n\n  ${device.userCode}\n${url.href !== device.verificationUri.href ? `\n(or open ${url.href}, which carries the code)\n` : ''}`,
              );
          } else if (io.json) io.log.info('open the authorization URL in a browser', { authorization_url: url.href });
          else io.err(`\nTo authorize, open this URL in a browser${opening}:\n\n  ${url.href}\n`);
          if (open) openBrowser(url, io.log);
        },
      },
    });
    io.out(
      io.json
        ? JSON.stringify({
            ok: true,
            configuration: result.configuration,
            auth_method: result.authMethod,
            saved: result.saved,
            scope: result.scope ?? null,
          })
        : `authorized: ${result.saved.join(', ')} saved to ${result.configuration}${result.scope ? ` (scope granted: ${result.scope})` : ''}\nnext: npx connector-auth probe`,
    );
    return 0;
  },
};
export default command;
