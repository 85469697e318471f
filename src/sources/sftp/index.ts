export { default } from './sftp-source.js';
export type { SftpSource, SftpEntry, SftpEntryType, SftpStat } from './sftp-source.js';
