/**
 * The first SIGINT or SIGTERM, for a command that serves until it is stopped (`serve`, `emulator`):
 * listening from the call on, both listeners removed once one has come.
 */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    const stop = (s: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(s);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
