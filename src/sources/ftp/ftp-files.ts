import type { RemoteEntryType, RemoteFiles } from '../remote-files.js';

/**
 * What a connector's update() holds of an FTP server (ftp-connection.ts makes it), and what its calls
 * return. Apart from the connection so that the package's declarations name no type of basic-ftp,
 * an optional peer.
 */

/**
 * Some servers (vsftpd) list a directory that does not exist as empty: stat() tells them apart. A
 * stat asks SIZE and MDTM, and a directory is what CWD accepts.
 */
export type FtpSource = RemoteFiles<FtpEntry, FtpStat>;

export type FtpEntryType = RemoteEntryType;

export interface FtpEntry {
  name: string;
  type: FtpEntryType;
  size: number;
  /** From a machine-readable listing (MLSD); undefined where the server lists only `ls -l` text (vsftpd): stat() asks MDTM. */
  modifiedAt: Date | undefined;
}

export interface FtpStat {
  type: 'file' | 'directory';
  size: number;
  modifiedAt: Date | undefined;
}
