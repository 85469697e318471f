import { AuthenticationError, SourceUnreachableError, type ConnectorAuthError } from '../../errors/index.js';
import { oneLine } from '../../network/index.js';
import {
  bodyField,
  InvalidRequestError,
  NotFoundError,
  readJsonBody,
  type TransportResponse,
} from '../transport/index.js';
import { pipelineErrorBodySchema } from './pipeline-records.js';

/** What a refused request was about: "group 'grp_1'", "transformation package 'tp_1'", "groups". */
export interface RequestSubject {
  resource: string;
  id: string;
}

/**
 * A status other than the one expected, as the project's classes (section 7 and the real service's
 * `{code, message}` bodies): 401/403 name `rejectedKey`, the credential to check; 404 is a
 * NotFoundError naming the subject; other 4xx an InvalidRequestError; 429 and 5xx, which arrive here
 * after their retries, the service being unreachable.
 */
export async function pipelineStatusError(
  response: TransportResponse,
  target: string,
  subject: RequestSubject,
  rejectedKey: string,
): Promise<ConnectorAuthError> {
  const body = await readJsonBody(response, target).catch(() => undefined);
  const parsed = pipelineErrorBodySchema.safeParse(body);
  const serviceCode = parsed.success ? parsed.data.code : undefined;
  const serviceMessage = parsed.success ? oneLine(parsed.data.message) : oneLine(bodyField(body, 'message'));
  const said = [serviceCode, serviceMessage].filter(Boolean).join(': ');
  const status = `HTTP ${response.status}${said ? ` ${said}` : ''}`;
  const s = response.status;
  if (s === 401 || s === 403)
    return new AuthenticationError(
      `${target} ${s === 401 ? 'rejected the API key and secret' : 'denied access (the API key lacks a permission)'} (${status})`,
      { code: `http_${s}`, key: rejectedKey, hint: `check the API key and secret ('${rejectedKey}')` },
    );
  if (s === 404)
    return new NotFoundError(
      `${target}: ${subject.resource}${subject.id ? ` '${subject.id}'` : ''} not found (${status})`,
      {
        code: 'not_found',
        resource: subject.resource,
        id: subject.id,
        hint: `check the ${subject.resource} identifier`,
      },
    );
  if (s >= 400 && s < 500 && s !== 429)
    return new InvalidRequestError(`${target} refused the request (${status})`, {
      code: `http_${s}`,
      hint: 'check the identifiers and parameters of the request',
    });
  return new SourceUnreachableError(`${target} answered ${status}${s === 429 || s >= 500 ? ' after retries' : ''}`, {
    code: `http_${s}`,
    hint: s === 429 ? 'the service is rate limiting this key; try again later' : 'the service failed; try again later',
  });
}
