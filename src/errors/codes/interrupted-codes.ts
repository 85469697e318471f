/** Codes of InterruptedError (exit 130 for SIGINT, 143 for SIGTERM). */
export const INTERRUPTED_CODES = {
  interrupted: 'the run was stopped by a signal after closing what it had open',
} as const;
