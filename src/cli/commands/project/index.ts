import type { Command } from '../../cli-io.js';

// The commands that act on one connector project. Each module is imported only when its command runs:
// this door holds loaders, not the commands, so `--help` loads none of them.
export const projectCommands = {
  init: () => import('./init.js'),
  validate: () => import('./validate.js'),
  doctor: () => import('./doctor.js'),
  authorize: () => import('./authorize.js'),
  probe: () => import('./probe.js'),
  debug: () => import('./debug.js'),
  reset: () => import('./reset.js'),
} satisfies Record<string, () => Promise<{ default: Command }>>;
