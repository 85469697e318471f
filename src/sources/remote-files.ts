import type { Readable } from 'node:stream';
import type { ConnectedSource, ProbeResult } from './source-definition.js';

/**
 * What update() holds of a file server, whichever protocol reaches it (sftp, ftp): one surface, so a
 * connector written for one works against the other, and the template reads either. Each source
 * names its own entry and stat types, which say what its protocol can tell (FTP's `ls -l` listings
 * carry no reliable modification time).
 */
export interface RemoteFiles<Entry, Stat> extends ConnectedSource {
  /** "sftp://alice@files.example.com:22": no secret in it. */
  readonly target: string;
  /** The entries of a directory (without `.` and `..`); relative paths start at the login directory. */
  list(path?: string): Promise<Entry[]>;
  /** One file's or directory's size and modification time. */
  stat(path: string): Promise<Stat>;
  /** A whole file, in memory: for small files. */
  readFile(path: string): Promise<Buffer>;
  /** A file as a stream, for large ones; read errors arrive as the stream's 'error'. */
  createReadStream(path: string): Promise<Readable>;
}

export type RemoteEntryType = 'file' | 'directory' | 'symlink' | 'other';

/** The probe of a file server: its listing of `probePath` (the login directory by default), counted. */
export function listingProbed(
  target: string,
  protocol: 'FTP' | 'SFTP',
  probePath: string,
  entries: number,
  started: number,
): ProbeResult {
  const shown = probePath === '.' ? '. (login directory)' : probePath;
  return {
    target,
    outcome: `${protocol} list ${shown}: ${entries} ${entries === 1 ? 'entry' : 'entries'}`,
    elapsedMs: performance.now() - started,
  };
}
