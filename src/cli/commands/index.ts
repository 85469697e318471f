import { hostCommands } from './hosts/index.js';
import { interfaceCommands } from './interfaces/index.js';
import { projectCommands } from './project/index.js';

// Every command's loader, by name, for main.ts's table. Loaders, not modules: main.ts imports this door
// statically and a command's module still loads only when that command runs.
export const loadCommand = {
  ...projectCommands,
  ...hostCommands,
  ...interfaceCommands,
  version: () => import('./version.js'),
};
