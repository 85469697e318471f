import { z } from 'zod';
import { optionalText } from './coerce.js';

/**
 * Keys of the source that an auth method may read, typed once when the configuration is resolved
 * (the method never sees the raw map): for its description and for checks that depend on where the
 * credential goes. Each is optional: a source that has no such key leaves it out.
 */
export const sourceFactKeys = z.object({
  /** The rest source's `base_url`, as configured: a client certificate is refused over http://. */
  base_url: optionalText(),
  /** postgres's `user`: the role a password logs in as. */
  user: optionalText(),
  /** sftp's `username`: the account an SSH key logs in as. */
  username: optionalText(),
  /** s3's `endpoint`: an S3-compatible server, whose own access key ids are accepted. */
  endpoint: optionalText(),
});
export type SourceFacts = Readonly<Partial<z.output<typeof sourceFactKeys>>>;
