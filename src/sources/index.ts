export { defineSource } from './source-definition.js';
export type {
  SourceDefinition,
  ConnectedSource,
  CredentialFor,
  ProbeResult,
  SourceContext,
} from './source-definition.js';
export type { RemoteFiles, RemoteEntryType } from './remote-files.js';
export { SOURCE_NAMES, loadSource } from './built-in-sources.js';
export type { RestSource, RestRequestInit } from './rest.js';
export type { SignedUrlSource, SignedUrlRequestInit } from './signed-url.js';
export type { PostgresSource, SslMode } from './postgres/index.js';
export type { SftpSource, SftpEntry, SftpEntryType, SftpStat } from './sftp/index.js';
export type { S3Source, S3Object, S3ObjectStat, S3ListOptions, S3SdkClient } from './s3/index.js';
export type { MysqlSource, MysqlRow, MysqlTls } from './mysql/index.js';
export type { FtpSource, FtpEntry, FtpStat, FtpTls } from './ftp/index.js';
