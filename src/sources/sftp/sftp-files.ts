import type { RemoteEntryType, RemoteFiles } from '../remote-files.js';

/**
 * What a connector's update() holds of an SFTP server (sftp-connection.ts makes it), and what its
 * calls return. Apart from the connection so that the package's declarations name no type of
 * ssh2-sftp-client, an optional peer.
 */

/** Symbolic links are followed by stat(), and listed as `symlink`. */
export type SftpSource = RemoteFiles<SftpEntry, SftpStat>;

export interface SftpEntry {
  name: string;
  type: SftpEntryType;
  size: number;
  modifiedAt: Date;
}

export interface SftpStat {
  type: SftpEntryType;
  size: number;
  modifiedAt: Date;
}

export type SftpEntryType = RemoteEntryType;
