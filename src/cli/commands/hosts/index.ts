import type { Command } from '../../cli-io.js';

// The commands that run a project under a host's protocol (Airbyte, Fivetran's partner SDK). Loaders
// only, as in project/: a command's module, and its host, load when it runs.
export const hostCommands = {
  airbyte: () => import('./airbyte.js'),
  serve: () => import('./serve.js'),
} satisfies Record<string, () => Promise<{ default: Command }>>;
