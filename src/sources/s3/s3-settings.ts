import { z } from 'zod';
import { keys } from '../../config/index.js';
import { sshTunnelKeys } from '../../network/index.js';

/**
 * The s3 source's keys. `endpoint` points the source at an S3-compatible server (MinIO, Ceph,
 * s3rver, a VPC endpoint); such servers address buckets in the path (`endpoint/bucket/key`), so
 * path-style requests go with it. Without it, the source talks to AWS itself in the bucket's region.
 * The region is `region`, else the method's `aws_region`, else us-east-1 (what S3-compatible servers
 * expect when they care at all).
 */

/** Bucket names as S3 allows them for new buckets: 3–63 of a-z 0-9 . -, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const s3Keys = z.object({
  bucket: keys.text().refine((v) => BUCKET_NAME.test(v) && !v.includes('..'), {
    message:
      'must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots or hyphens, starting and ending with a letter or digit',
  }),
  region: keys.optionalText(),
  endpoint: keys.optionalUrl(),
  prefix: keys.textWithDefault(''),
  ...sshTunnelKeys.shape,
});
export type S3Keys = z.output<typeof s3Keys>;

export const DEFAULT_REGION = 'us-east-1';

export interface S3Location {
  bucket: string;
  prefix: string;
  region: string;
  /** The configured endpoint; undefined means AWS. */
  endpoint: URL | undefined;
}

/** "s3://orders/exports/ at http://127.0.0.1:4568" or "s3://orders/ (eu-west-1)": what messages and the probe show. */
export function describeLocation(location: S3Location): string {
  const where = location.endpoint ? `at ${location.endpoint.origin}` : `(${location.region})`;
  return `s3://${location.bucket}/${location.prefix} ${where}`;
}
