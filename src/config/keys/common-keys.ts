import { z } from 'zod';
import { boolean, isoDate, optionalText, positiveNumber, text } from './coerce.js';

/** Keys every configuration may carry, whatever its auth method and source. */
export const commonKeys = z.object({
  auth_method: text(),
  timeout_seconds: positiveNumber({ max: 3600, default: 10 }),
  credential_issued_at: isoDate(),
  environment: optionalText().refine((v) => v === undefined || v === 'test' || v === 'production', {
    message: 'must be test or production',
  }),
  allow_plain_http: boolean(false),
  tls_skip_verify: boolean(false),
});
export type CommonKeys = z.output<typeof commonKeys>;
