import { oneLine } from '../../network/index.js';

/**
 * What an AWS service (STS, S3) answered, as an error quotes it: its code, its message when that
 * says more than the code, and the status: `AccessDenied: Access Denied (HTTP 403)`.
 */
export function awsAnswerSaid(code: string, message: string | undefined, status: number): string {
  return `${code}${message && message !== code ? `: ${oneLine(message)}` : ''} (HTTP ${status})`;
}

/**
 * An answer that says the service failed or throttled (5xx, 429), which the SDK has already
 * retried: the user can only try again later, so no configuration key is at fault.
 */
export function awsServiceUnavailable(status: number): boolean {
  return status >= 500 || status === 429;
}
