export { default } from './ftp-source.js';
export type { FtpSource, FtpEntry, FtpEntryType, FtpStat } from './ftp-source.js';
export type { FtpTls } from './ftp-settings.js';
