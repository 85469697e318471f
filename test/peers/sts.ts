import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type KeyInput } from 'jose';
import { canonicalRequest, parseQuery, sigv4Signature } from './sigv4.js';

/**
 * AWS Security Token Service (STS) as a client observes it, on 127.0.0.1 at an ephemeral port, over
 * HTTP or (with `tls`) HTTPS, written from AWS's documentation (STS API reference, Query API,
 * Signature Version 4) and from the answers real STS is known to give.
 *
 * STS cannot run on these machines (no container engine; no emulator published to npm), and the
 * emulators elsewhere check neither signatures nor trust, which are what a credentials method has to
 * get right. This peer serves the Query API the way the AWS SDK v3 `STSClient` (awsQuery protocol)
 * calls it, `POST /` with a form-encoded `Action=…&Version=2011-06-15&…` body (parameters in the
 * query string are read too), and answers in STS's XML shapes with `x-amzn-RequestId`:
 *
 * - AssumeRole must be signed with SigV4 (service `sts`, this endpoint's region) by a configured IAM
 *   user, or by temporary credentials issued here (role chaining, at most one hour, the session
 *   token in `x-amz-security-token`). The signature is recomputed from the body as received.
 * - The role's trust is its `principals` and `externalId`: a missing role, a principal it does not
 *   trust and a wrong external id all get the same 403 AccessDenied, because STS does not say which.
 * - AssumeRoleWithWebIdentity is unsigned; the token is verified (jose) with the role's key, issuer
 *   and audience: untrusted issuer 403 AccessDenied, bad token 400 InvalidIdentityToken, expired
 *   400 ExpiredTokenException.
 * - Parameters fail STS's own validation messages ("1 validation error detected: Value … at
 *   'roleArn' failed to satisfy constraint: …"), several at once joined as STS joins them.
 *
 * Issued credentials look like real ones (ASIA… key id, 40-character secret with `+` and `/`, a
 * session token of several hundred base64 characters) and are handed to `onIssued`, so a test can
 * make another peer (the s3rver peer's acceptTemporary) accept them.
 *
 * - GetCallerIdentity, signed as AssumeRole is, answers who signed: the user, or the assumed role's
 *   session ARN. Google's STS replays this request, signed by a workload, to learn its AWS identity
 *   (test/peers/google-sts.ts); `acceptSession` makes the credentials another peer issued (an EC2
 *   instance's role, test/peers/cloud-metadata.ts) known here, as AWS knows every session it issued.
 *
 * Not reproduced: session policies, tags, source identity, MFA, SAML,
 * GetSessionToken and the other actions (answered as unknown operations), SigV4 in the query string
 * (answered as unsigned), the account-level OIDC provider registry (a role's `webIdentity` stands for
 * it and its trust at once).
 */

export interface StsUser {
  /** A long-term key id, e.g. AKIA…. */
  accessKeyId: string;
  secretAccessKey: string;
  /** e.g. arn:aws:iam::123456789012:user/alice */
  arn: string;
}

export interface StsWebIdentity {
  /** The token's `iss`, e.g. https://issuer.example.com (AWS reports it as the Provider without https://). */
  issuer: string;
  /** The client id the token's `aud` must name. */
  audience: string;
  /** The issuer's public key, in any form jose verifies with (KeyObject, CryptoKey, JWK). */
  key: KeyInput;
}

export interface StsRole {
  /** arn:aws:iam::<account>:role/<path/>name */
  arn: string;
  /** The user (or role, for role chaining) ARNs its trust policy allows sts:AssumeRole. */
  principals?: string[];
  /** The trust policy's sts:ExternalId condition. */
  externalId?: string;
  /** The role's MaxSessionDuration (default 3600). */
  maxSessionSeconds?: number;
  /** The OIDC provider its trust policy allows sts:AssumeRoleWithWebIdentity from. */
  webIdentity?: StsWebIdentity;
}

export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** Whole seconds, as the answer states it. */
  expiration: Date;
  roleArn: string;
  sessionName: string;
  action: 'AssumeRole' | 'AssumeRoleWithWebIdentity' | 'InstanceProfile';
}

export interface StsRequest {
  action: string | undefined;
  /** The key id the Authorization header names, if any (whether or not it is known). */
  accessKeyId: string | undefined;
  roleArn: string | undefined;
  roleSessionName: string | undefined;
  externalId: string | undefined;
  durationSeconds: number | undefined;
  /** The HTTP status answered, and the error code when it was an error. */
  status: number;
  code: string | undefined;
}

export interface StsPeerOptions {
  users?: StsUser[];
  roles?: StsRole[];
  /** The region of this regional endpoint, which signatures must be scoped to (default us-east-1). */
  region?: string;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** The host name `endpoint` gives (default 127.0.0.1); the server listens on 127.0.0.1 either way. */
  host?: string;
  /** Called with each credential set issued, after it is recorded in `issued`. */
  onIssued?: (credentials: IssuedCredentials) => void;
}

export interface StsPeer {
  /** http://127.0.0.1:<port>, or https:// with `tls` (`host` in place of 127.0.0.1 when given). */
  endpoint: string;
  region: string;
  requests: StsRequest[];
  issued: IssuedCredentials[];
  /** The next `count` requests get this error before any check (e.g. 400 Throttling "Rate exceeded", 503 ServiceUnavailable). */
  failNext(status: number, code: string, message: string, count?: number): void;
  /** Temporary credentials of `roleArn` issued elsewhere (an EC2 instance's, for session `sessionName`): accepted from now on. */
  acceptSession(
    credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: Date },
    roleArn: string,
    sessionName: string,
  ): void;
  stop(): Promise<void>;
}

const VERSION = '2011-06-15';
const NAMESPACE = `https://sts.amazonaws.com/doc/${VERSION}/`;
const MAX_SKEW_MS = 15 * 60_000;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/;
const CHAINED_MAX_SECONDS = 3600;

/** An error answer; thrown by the checks, so each reads as the sequence STS applies. */
class Fault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const signatureDoesNotMatch = (
  message = 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
) => new Fault(403, 'SignatureDoesNotMatch', message);
const invalidClientTokenId = () =>
  new Fault(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
const invalidIdentityToken = (
  message = 'The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.',
) => new Fault(400, 'InvalidIdentityToken', message);

/** Who signed a request: the ARN STS names them by, the ARN trust policies name them by. */
interface Caller {
  arn: string;
  principal: string;
  userId: string;
  chained: boolean;
}

interface Received {
  req: IncomingMessage;
  path: string;
  query: [string, string][];
  body: Buffer;
  params: Map<string, string>;
}

export async function start(options: StsPeerOptions = {}): Promise<StsPeer> {
  const region = options.region ?? 'us-east-1';
  const users = options.users ?? [];
  const roles = options.roles ?? [];
  // Real role and user ids are stable per principal; a fresh random one per call would not be.
  const uniqueIds = new Map<string, string>([
    ...users.map((u) => [u.arn, uniqueId('AIDA')] as const),
    ...roles.map((r) => [r.arn, uniqueId('AROA')] as const),
  ]);
  const requests: StsRequest[] = [];
  const issued: IssuedCredentials[] = [];
  const failures: Fault[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const received = await receive(req);
    const { params } = received;
    const entry: StsRequest = {
      action: params.get('Action'),
      accessKeyId: /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '')?.[1],
      roleArn: params.get('RoleArn'),
      roleSessionName: params.get('RoleSessionName'),
      externalId: params.get('ExternalId'),
      durationSeconds: params.has('DurationSeconds') ? Number(params.get('DurationSeconds')) : undefined,
      status: 200,
      code: undefined,
    };
    const requestId = randomUUID();
    let body: string;
    try {
      const failure = failures.shift();
      if (failure) throw failure;
      body = await answer(received, requestId);
    } catch (thrown) {
      // A fault of the peer itself is answered as STS answers its own, and names what went wrong.
      const error =
        thrown instanceof Fault
          ? thrown
          : new Fault(
              500,
              'InternalFailure',
              `The request processing has failed because of an unknown error, exception or failure. (${String(thrown)})`,
            );
      entry.status = error.status;
      entry.code = error.code;
      body = errorXml(error, requestId);
    }
    requests.push(entry);
    // Date from the peer's clock, the `Date` a test may move (Node's own header reads the real one): the SDK corrects its signing clock by it.
    res.writeHead(entry.status, {
      'content-type': 'text/xml',
      'content-length': Buffer.byteLength(body),
      'x-amzn-RequestId': requestId,
      date: new Date().toUTCString(),
    });
    res.end(body);
  }

  async function answer(received: Received, requestId: string): Promise<string> {
    const action = received.params.get('Action');
    const version = received.params.get('Version');
    if (!action) throw new Fault(400, 'MissingAction', 'Missing Action');
    if (version === undefined)
      throw new Fault(400, 'MissingParameter', 'The request must contain the parameter Version');
    if (version !== VERSION)
      throw new Fault(
        400,
        'InvalidParameterValue',
        `Value (${version}) for parameter Version is invalid. Supported version is ${VERSION}`,
      );
    switch (action) {
      case 'AssumeRole':
        return respond(action, assumeRole(authenticate(received), received.params), requestId);
      case 'AssumeRoleWithWebIdentity':
        return respond(action, await assumeRoleWithWebIdentity(received.params), requestId);
      case 'GetCallerIdentity': {
        const caller = authenticate(received);
        const account = /^arn:[^:]+:(?:iam|sts)::(\d{12}):/.exec(caller.arn)?.[1] ?? '';
        return respond(
          action,
          `<Arn>${escapeXml(caller.arn)}</Arn><UserId>${escapeXml(caller.userId)}</UserId><Account>${account}</Account>`,
          requestId,
        );
      }
      default:
        throw new Fault(400, 'InvalidAction', `Could not find operation ${action} for version ${VERSION}`);
    }
  }

  /** SigV4 as STS checks it, in the order its answers imply: form, clock, scope, key, token, signature. */
  function authenticate({ req, path, query, body }: Received): Caller {
    const authorization = req.headers.authorization;
    if (authorization === undefined)
      throw new Fault(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    const parsed = parseAuthorization(authorization);
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const requestTime = parseAmzDate(amzDate);
    if (Number.isNaN(requestTime))
      throw new Fault(
        400,
        'IncompleteSignature',
        `Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=${authorization}`,
      );
    refuseSkew(amzDate, requestTime);
    refuseScope(parsed.scope, amzDate);

    const { secret, caller, sessionToken, expiration } = signer(parsed.accessKeyId);
    const presentedToken = req.headers['x-amz-security-token'];
    if (presentedToken !== sessionToken) throw invalidClientTokenId();
    if (expiration && expiration.getTime() <= Date.now())
      throw new Fault(403, 'ExpiredToken', 'The security token included in the request is expired');

    const bodyHash = createHash('sha256').update(body).digest('hex');
    const declaredHash = req.headers['x-amz-content-sha256'];
    if (declaredHash !== undefined && declaredHash !== bodyHash) throw signatureDoesNotMatch();
    const canonical = canonicalRequest(req, path, query, parsed.signedHeaders, bodyHash);
    if (sigv4Signature(secret, parsed.scope, amzDate, canonical) !== parsed.signature) throw signatureDoesNotMatch();
    return caller;
  }

  function refuseScope(scope: string, amzDate: string): void {
    const [date, scopeRegion, service, terminator] = scope.split('/');
    if (date !== amzDate.slice(0, 8))
      throw signatureDoesNotMatch(
        `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
      );
    if (scopeRegion !== region)
      throw signatureDoesNotMatch(`Credential should be scoped to a valid region, not '${scopeRegion}'.`);
    if (service !== 'sts') throw signatureDoesNotMatch(`Credential should be scoped to correct service: 'sts'.`);
    if (terminator !== 'aws4_request')
      throw signatureDoesNotMatch(
        `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'.`,
      );
  }

  /** The secret a key id signs with, and who it is: a configured user, or a session issued here. */
  function signer(accessKeyId: string): { secret: string; caller: Caller; sessionToken?: string; expiration?: Date } {
    const user = users.find((u) => u.accessKeyId === accessKeyId);
    if (user)
      return {
        secret: user.secretAccessKey,
        caller: { arn: user.arn, principal: user.arn, userId: uniqueIds.get(user.arn)!, chained: false },
      };
    const session = issued.find((i) => i.accessKeyId === accessKeyId);
    if (!session) throw invalidClientTokenId();
    return {
      secret: session.secretAccessKey,
      caller: { ...assumedRole(session.roleArn, session.sessionName), principal: session.roleArn, chained: true },
      sessionToken: session.sessionToken,
      expiration: session.expiration,
    };
  }

  function assumedRole(roleArn: string, sessionName: string): { arn: string; userId: string } {
    const [, partition] = /^arn:([^:]+):/.exec(roleArn)!;
    const [, account, name] = ROLE_ARN.exec(roleArn)!;
    return {
      arn: `arn:${partition}:sts::${account}:assumed-role/${name}/${sessionName}`,
      userId: `${uniqueIds.get(roleArn)}:${sessionName}`,
    };
  }

  function assumeRole(caller: Caller, params: Map<string, string>): string {
    const roleArn = params.get('RoleArn');
    const sessionName = params.get('RoleSessionName');
    const externalId = params.get('ExternalId');
    const duration = params.get('DurationSeconds');
    validate([
      ...roleArnViolations(roleArn),
      ...sessionNameViolations(sessionName),
      ...violations('externalId', externalId, { min: 2, max: 1224, pattern: [/^[\w+=,.@:/-]*$/, '[\\w+=,.@:\\/-]*'] }),
      ...durationViolations(duration),
    ]);
    if (!ROLE_ARN.test(roleArn!)) throw new Fault(400, 'ValidationError', 'Request ARN is invalid');
    const role = roles.find((r) => r.arn === roleArn);
    const trusted =
      role?.principals?.includes(caller.principal) === true &&
      (role.externalId === undefined || role.externalId === externalId);
    if (!role || !trusted)
      throw new Fault(
        403,
        'AccessDenied',
        `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    const seconds = duration === undefined ? 3600 : Number(duration);
    if (caller.chained && seconds > CHAINED_MAX_SECONDS)
      throw new Fault(
        400,
        'ValidationError',
        'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
      );
    refuseOverMaximum(role, seconds);
    const credentials = issue(role.arn, sessionName!, seconds, 'AssumeRole');
    return `${assumedRoleUserXml(role.arn, sessionName!)}\n${credentialsXml(credentials)}`;
  }

  async function assumeRoleWithWebIdentity(params: Map<string, string>): Promise<string> {
    const roleArn = params.get('RoleArn');
    const sessionName = params.get('RoleSessionName');
    const token = params.get('WebIdentityToken');
    const duration = params.get('DurationSeconds');
    validate([
      ...roleArnViolations(roleArn),
      ...sessionNameViolations(sessionName),
      ...violations('webIdentityToken', token, { required: true, min: 4, max: 20000 }),
      ...durationViolations(duration),
    ]);
    if (!ROLE_ARN.test(roleArn!)) throw new Fault(400, 'ValidationError', 'Request ARN is invalid');
    const role = roles.find((r) => r.arn === roleArn);
    const identity = role?.webIdentity;
    const issuer = tokenIssuer(token!);
    if (!role || !identity || issuer !== identity.issuer)
      throw new Fault(403, 'AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity');
    const claims = await verifiedClaims(token!, identity);
    const seconds = duration === undefined ? 3600 : Number(duration);
    refuseOverMaximum(role, seconds);
    const credentials = issue(role.arn, sessionName!, seconds, 'AssumeRoleWithWebIdentity');
    return [
      `<SubjectFromWebIdentityToken>${escapeXml(String(claims.sub ?? ''))}</SubjectFromWebIdentityToken>`,
      `<Audience>${escapeXml(identity.audience)}</Audience>`,
      assumedRoleUserXml(role.arn, sessionName!),
      credentialsXml(credentials),
      `<Provider>${escapeXml(identity.issuer.replace(/^https:\/\//, ''))}</Provider>`,
    ].join('\n');
  }

  function issue(
    roleArn: string,
    sessionName: string,
    seconds: number,
    action: IssuedCredentials['action'],
  ): IssuedCredentials {
    const credentials: IssuedCredentials = {
      accessKeyId: `ASIA${randomChars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 16)}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(600).toString('base64'),
      expiration: new Date(Math.floor(Date.now() / 1000) * 1000 + seconds * 1000),
      roleArn,
      sessionName,
      action,
    };
    issued.push(credentials);
    options.onIssued?.(credentials);
    return credentials;
  }

  function assumedRoleUserXml(roleArn: string, sessionName: string): string {
    const { arn, userId } = assumedRole(roleArn, sessionName);
    return `<AssumedRoleUser><Arn>${escapeXml(arn)}</Arn><AssumedRoleId>${escapeXml(userId)}</AssumedRoleId></AssumedRoleUser>`;
  }

  const server: Server = options.tls
    ? createHttpsServer(
        { key: options.tls.key, cert: options.tls.cert },
        (req, res) => void handle(req, res).catch(() => res.destroy()),
      )
    : createHttpServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `${options.tls ? 'https' : 'http'}://${options.host ?? '127.0.0.1'}:${port}`,
    region,
    requests,
    issued,
    failNext(status, code, message, count = 1) {
      for (let i = 0; i < count; i++) failures.push(new Fault(status, code, message));
    },
    acceptSession(credentials, roleArn, sessionName) {
      if (!uniqueIds.has(roleArn)) uniqueIds.set(roleArn, uniqueId('AROA'));
      issued.push({ ...credentials, roleArn, sessionName, action: 'InstanceProfile' });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request in full: STS's parameters come from the query string and a form-encoded body alike. */
async function receive(req: IncomingMessage): Promise<Received> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const [path = '/', rawQuery = ''] = (req.url ?? '/').split('?', 2);
  const query = parseQuery(rawQuery);
  const params = new Map<string, string>();
  const add = (name: string, value: string) => void (params.has(name) || params.set(name, value));
  for (const [name, value] of query) add(name, value);
  if (/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) add(name, value);
  }
  return { req, path, query, body, params };
}

/** `AWS4-HMAC-SHA256 Credential=<id>/<scope>, SignedHeaders=…, Signature=…`, or 400 IncompleteSignature naming what is missing. */
function parseAuthorization(authorization: string): {
  accessKeyId: string;
  scope: string;
  signedHeaders: string;
  signature: string;
} {
  const match = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(authorization);
  const components = new Map(
    (match?.[1] ?? '').split(',').map((component) => {
      const [name = '', ...value] = component.trim().split('=');
      return [name, value.join('=')] as const;
    }),
  );
  const missing = ['Credential', 'Signature', 'SignedHeaders'].filter((name) => !components.get(name));
  if (!match || missing.length > 0) {
    const requirements = (match ? missing : ['Credential', 'Signature', 'SignedHeaders']).map(
      (name) => `Authorization header requires '${name}' parameter.`,
    );
    throw new Fault(400, 'IncompleteSignature', `${requirements.join(' ')} Authorization=${authorization}`);
  }
  const [accessKeyId = '', ...scope] = components.get('Credential')!.split('/');
  return {
    accessKeyId,
    scope: scope.join('/'),
    signedHeaders: components.get('SignedHeaders')!,
    signature: components.get('Signature')!,
  };
}

/** `YYYYMMDDTHHMMSSZ` → epoch ms, NaN when it is not one. */
function parseAmzDate(amzDate: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!) : NaN;
}

/** A signature dated more than 15 minutes either side of now, in STS's own words for each side. */
function refuseSkew(amzDate: string, requestTime: number): void {
  const now = Date.now();
  const format = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d+/g, '');
  if (requestTime < now - MAX_SKEW_MS)
    throw signatureDoesNotMatch(
      `Signature expired: ${amzDate} is now earlier than ${format(now - MAX_SKEW_MS)} (${format(now)} - 15 min.)`,
    );
  if (requestTime > now + MAX_SKEW_MS)
    throw signatureDoesNotMatch(
      `Signature not yet current: ${amzDate} is still later than ${format(now + MAX_SKEW_MS)} (${format(now)} + 15 min.)`,
    );
}

/** The `iss` of a web identity token, read before anything is verified: it names the provider to verify with. */
function tokenIssuer(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    throw invalidIdentityToken();
  }
}

/** The token's claims once its signature, issuer, audience and lifetime hold, else STS's answer for the first that does not. */
async function verifiedClaims(token: string, identity: StsWebIdentity): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, identity.key, { issuer: identity.issuer, audience: identity.audience });
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw new Fault(
        400,
        'ExpiredTokenException',
        `Token expired: current date/time ${Math.floor(Date.now() / 1000)} must be before the expiration date/time ${error.payload.exp}`,
      );
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud')
      throw invalidIdentityToken('Incorrect token audience');
    throw invalidIdentityToken();
  }
}

function refuseOverMaximum(role: StsRole, seconds: number): void {
  if (seconds > (role.maxSessionSeconds ?? 3600))
    throw new Fault(
      400,
      'ValidationError',
      'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    );
}

/** STS reports every constraint a request breaks at once, in one message. */
function validate(violations: string[]): void {
  if (violations.length === 0) return;
  const count = `${violations.length} validation error${violations.length === 1 ? '' : 's'} detected`;
  throw new Fault(400, 'ValidationError', `${count}: ${violations.join('; ')}`);
}

/** What a member's value breaks, in STS's words and order (pattern, then length). */
function violations(
  member: string,
  value: string | undefined,
  rules: { required?: boolean; min?: number; max?: number; pattern?: [RegExp, string] },
): string[] {
  const broken = (constraint: string) =>
    `Value ${value === undefined ? 'null' : `'${value}'`} at '${member}' failed to satisfy constraint: Member must ${constraint}`;
  if (value === undefined) return rules.required ? [broken('not be null')] : [];
  return [
    ...(rules.pattern && !rules.pattern[0].test(value)
      ? [broken(`satisfy regular expression pattern: ${rules.pattern[1]}`)]
      : []),
    ...(rules.min !== undefined && value.length < rules.min
      ? [broken(`have length greater than or equal to ${rules.min}`)]
      : []),
    ...(rules.max !== undefined && value.length > rules.max
      ? [broken(`have length less than or equal to ${rules.max}`)]
      : []),
  ];
}

function roleArnViolations(roleArn: string | undefined): string[] {
  return violations('roleArn', roleArn, { required: true, min: 20, max: 2048 });
}

function sessionNameViolations(sessionName: string | undefined): string[] {
  return violations('roleSessionName', sessionName, {
    required: true,
    min: 2,
    max: 64,
    pattern: [/^[\w+=,.@-]*$/, '[\\w+=,.@-]*'],
  });
}

function durationViolations(duration: string | undefined): string[] {
  const broken = (constraint: string) =>
    `Value '${duration}' at 'durationSeconds' failed to satisfy constraint: Member must ${constraint}`;
  if (duration === undefined) return [];
  if (!/^\d+$/.test(duration)) return [broken('be an integer')];
  if (Number(duration) < 900) return [broken('have value greater than or equal to 900')];
  if (Number(duration) > 43200) return [broken('have value less than or equal to 43200')];
  return [];
}

function respond(action: string, result: string, requestId: string): string {
  return [
    `<${action}Response xmlns="${NAMESPACE}">`,
    `  <${action}Result>`,
    result.replace(/^/gm, '    '),
    `  </${action}Result>`,
    `  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>`,
    `</${action}Response>`,
  ].join('\n');
}

function errorXml(fault: Fault, requestId: string): string {
  return [
    `<ErrorResponse xmlns="${NAMESPACE}">`,
    `  <Error><Type>${fault.status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(fault.code)}</Code><Message>${escapeXml(fault.message)}</Message></Error>`,
    `  <RequestId>${requestId}</RequestId>`,
    `</ErrorResponse>`,
  ].join('\n');
}

function credentialsXml(c: IssuedCredentials): string {
  const expiration = c.expiration.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `<Credentials><AccessKeyId>${c.accessKeyId}</AccessKeyId><SecretAccessKey>${c.secretAccessKey}</SecretAccessKey><SessionToken>${c.sessionToken}</SessionToken><Expiration>${expiration}</Expiration></Credentials>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** AIDA… (user) and AROA… (role) ids: the prefix and 17 characters, as IAM makes them. */
function uniqueId(prefix: string): string {
  return `${prefix}${randomChars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 17)}`;
}

function randomChars(alphabet: string, length: number): string {
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}
