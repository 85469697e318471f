export { default } from './s3-source.js';
export type { S3Source, S3Object, S3ObjectStat, S3ListOptions, S3SdkClient } from './s3-objects.js';
