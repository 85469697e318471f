import type { Command } from '../../cli-io.js';

// The commands of the interfaces: the pipeline and webhooks clients, and the emulator that serves both.
// Loaders only, as in project/.
export const interfaceCommands = {
  pipeline: () => import('./pipeline.js'),
  webhooks: () => import('./webhooks.js'),
  emulator: () => import('./emulator.js'),
} satisfies Record<string, () => Promise<{ default: Command }>>;
