/** A code made from Node's name for a system error: `ECONNREFUSED` is `econnrefused`. */
export type SystemErrorCode = `e${string}`;

/** `name` is one of Node's system error names (`E…`), which every caller checks against its table first. */
export function systemErrorCode(name: string): SystemErrorCode {
  return name.toLowerCase() as SystemErrorCode;
}
