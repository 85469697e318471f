import { describe, expect, it } from 'vitest';
// internals: cli/ is the entry point and has no door
import { parseInterfaceArgs } from '../../src/cli/interface-args.js';
import { cli } from '../helpers/cli.js';
import { rejection } from '../helpers/rejection.js';

/** The one parser of the interface commands (pipeline, webhooks): actions, their identifier, the shared flags. */

const COMMAND = {
  name: 'pipeline',
  actions: { groups: { identifier: false }, connectors: { identifier: true }, upgrade: { identifier: true } },
  identifier: 'identifier',
  options: { limit: { type: 'string' }, connections: { type: 'boolean' } },
} as const;

const failure = (args: string[]) =>
  rejection(
    (async () => {
      parseInterfaceArgs(COMMAND, args);
    })(),
  );

describe('parseInterfaceArgs', () => {
  it('gives the action, its identifier and the shared and own flags', () => {
    expect(
      parseInterfaceArgs(COMMAND, ['connectors', 'g1', '--limit', '5', '--connections', '--base-url', 'http://x']),
    ).toEqual({
      help: undefined,
      action: 'connectors',
      id: 'g1',
      values: { limit: '5', connections: true, 'base-url': 'http://x' },
    });
    expect(parseInterfaceArgs(COMMAND, ['groups', '--configuration', 'c.json'])).toMatchObject({
      action: 'groups',
      id: undefined,
      values: { configuration: 'c.json' },
    });
  });

  it('--help is exit 0, no action exit 2, both after the usage', () => {
    expect(parseInterfaceArgs(COMMAND, ['groups', '--help'])).toEqual({ help: 0 });
    expect(parseInterfaceArgs(COMMAND, ['-h'])).toEqual({ help: 0 });
    expect(parseInterfaceArgs(COMMAND, [])).toEqual({ help: 2 });
  });

  it('an unknown action, a missing, extra or unwanted identifier: exit 2 with the command in the hint', async () => {
    const cases: [string[], string][] = [
      [['group'], "unknown pipeline action 'group'; use groups, connectors or upgrade"],
      [['toString'], "unknown pipeline action 'toString'; use groups, connectors or upgrade"],
      [['connectors'], 'pipeline connectors takes exactly one identifier'],
      [['upgrade', 'a', 'b'], 'pipeline upgrade takes exactly one identifier'],
      [['groups', 'g1'], 'pipeline groups takes no identifier'],
    ];
    for (const [args, message] of cases) {
      const error = await failure(args);
      expect([error.exitCode, error.code, error.message, error.hint]).toEqual([
        2,
        'invalid_arguments',
        message,
        'see connector-auth pipeline --help',
      ]);
    }
  });

  it('a flag of the other command is an unknown option, with the one meant', async () => {
    const error = await failure(['groups', '--limits', '5']);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe("unknown option '--limits' for connector-auth pipeline; did you mean '--limit'?");
  });
});

describe('the interface commands use it', () => {
  it('webhooks: exit 2 naming the webhook id; pipeline: exit 2 naming the identifier', async () => {
    const webhooks = await cli(['webhooks', 'get']);
    expect(webhooks.code).toBe(2);
    expect(webhooks.stderr).toContain('webhooks get takes exactly one webhook id');
    const unknown = await cli(['webhooks', 'remove', '3']);
    expect(unknown.stderr).toContain("unknown webhooks action 'remove'; use list, get or delete");
    const pipeline = await cli(['pipeline', 'groups', 'extra']);
    expect(pipeline.code).toBe(2);
    expect(pipeline.stderr).toContain('pipeline groups takes no identifier');
  });
});
