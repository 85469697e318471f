import { SIGNED_REQUEST_KEYS } from './signed-request-keys.js';

/**
 * Every configuration key the project defines, in one table: which are secret, and what each is for.
 * Secret registration, `validate`, `doctor` and the docs read this table; each auth method's and
 * source's zod schema owns the key's type and coercion (a test keeps the two in step).
 *
 * A key that no table declares is still treated as secret when its name looks like one (see
 * SECRET_NAME_PATTERN): a connector's own `my_service_token` is protected without any ceremony.
 */

import { plain, secret, type KeySpec } from './key-spec.js';
import { SESSION_TOKEN_KEYS } from './session-token-keys.js';

export type { KeySpec } from './key-spec.js';

export const KEY_CATALOGUE: Readonly<Record<string, KeySpec>> = {
  // common
  auth_method: plain('common', 'how the connector authenticates to its source (required)'),
  timeout_seconds: plain('common', 'deadline for each request and for the probe, in seconds (default 10)'),
  credential_issued_at: plain('common', 'ISO 8601 date the credential was issued; drives rotation warnings'),
  environment: plain('common', '`test` or `production`; keeps test and production credentials apart'),
  allow_plain_http: plain(
    'common',
    '`true` to allow sending a credential over http:// to a non-loopback host (logged)',
  ),
  tls_skip_verify: plain('common', '`true` to turn TLS server verification off (logged as a warning on every run)'),
  // TLS material, any HTTP source
  tls_ca_certificate: plain('tls', "PEM of the CA(s) that sign the source's server certificate"),
  tls_client_certificate: plain('tls', 'PEM client certificate (chain, leaf first)'),
  tls_client_private_key: secret('tls', 'PEM private key of the client certificate'),
  tls_client_private_key_passphrase: secret('tls', 'passphrase of an encrypted client private key'),
  tls_client_pkcs12: secret('tls', 'base64 PKCS#12 bundle of client certificate and key'),
  tls_client_pkcs12_passphrase: secret('tls', 'passphrase of the PKCS#12 bundle'),
  // SSH tunnel, any TCP source (postgres today)
  ssh_tunnel_host: plain(
    'ssh_tunnel',
    'bastion host; when set, the source (postgres, sftp, a rest API at base_url, an s3 endpoint) is reached through an SSH tunnel',
    'line',
  ),
  ssh_tunnel_port: plain('ssh_tunnel', 'bastion port (default 22)'),
  ssh_tunnel_user: plain('ssh_tunnel', 'bastion user', 'line'),
  ssh_tunnel_private_key: secret(
    'ssh_tunnel',
    'SSH private key for the bastion (OpenSSH, PEM or PuTTY file content); or ssh_tunnel_password',
  ),
  ssh_tunnel_private_key_passphrase: secret('ssh_tunnel', 'passphrase of an encrypted ssh_tunnel_private_key'),
  ssh_tunnel_password: secret(
    'ssh_tunnel',
    'password of ssh_tunnel_user on the bastion, for a bastion that takes passwords (in place of ssh_tunnel_private_key)',
  ),
  ssh_tunnel_host_key_fingerprint: plain(
    'ssh_tunnel',
    'expected host key of the bastion, `SHA256:…` (several: comma-separated); required unless ssh_tunnel_skip_host_key_check=true',
  ),
  ssh_tunnel_skip_host_key_check: plain(
    'ssh_tunnel',
    '`true` to use the bastion without checking its host key (logged as a warning on every run)',
  ),
  // auth methods
  username: plain(
    'basic, digest, sftp, ftp',
    'user name: HTTP Basic or Digest, the SFTP account, or the FTP account (`anonymous` for anonymous FTP)',
  ),
  password: secret(
    'basic, digest, password',
    "password: HTTP Basic or Digest (with `username`), or the password the source checks itself (auth_method password: the database's `user`, the SFTP or FTP `username`)",
  ),
  token: secret('bearer', 'pre-issued bearer token', 'header'),
  // In a header or a query string, as api_key_location says: the method checks it (api-key.ts).
  api_key: secret('api_key', 'the API key'),
  api_key_header: plain('api_key', 'header that carries the key (default X-API-Key)'),
  api_key_prefix: plain('api_key', 'text before the key in the header, e.g. `Token`'),
  api_key_location: plain('api_key', '`header` (default) or `query`'),
  api_key_query_param: plain('api_key', 'query parameter that carries the key when api_key_location=query'),
  token_url: plain('oauth2', 'OAuth 2.0 token endpoint (HTTPS, or http on loopback)', 'line'),
  client_id: plain('oauth2', 'OAuth 2.0 client id'),
  client_secret: secret('oauth2', 'OAuth 2.0 client secret'),
  refresh_token: secret(
    'oauth2_refresh_token',
    'OAuth 2.0 refresh token; rewritten when the server rotates it, written by `connector-auth authorize`',
  ),
  ...SIGNED_REQUEST_KEYS,
  authorization_url: plain(
    'oauth2_refresh_token',
    'authorization endpoint where a person grants the refresh token (`connector-auth authorize`); https://, http:// only on loopback',
    'line',
  ),
  device_authorization_url: plain(
    'oauth2_refresh_token',
    'device authorization endpoint (RFC 8628) for `connector-auth authorize --device`: the person approves a code on any device; https://, http:// only on loopback',
    'line',
  ),
  redirect_uri: plain(
    'oauth2_refresh_token',
    'loopback redirect URI registered for the client, served by `connector-auth authorize` (default http://127.0.0.1/callback on any free port)',
    'line',
  ),
  authorization_parameters: plain(
    'oauth2_refresh_token',
    'further authorization request parameters as a query string, e.g. `prompt=consent` or `access_type=offline&prompt=consent`',
  ),
  scope: plain(
    'oauth2, gcp_metadata, gcp_workload_identity',
    'scopes to request, space-separated (gcp_*: commas work too; gcp_workload_identity default cloud-platform)',
  ),
  audience: plain('oauth2', 'audience / resource indicator to request'),
  token_endpoint_auth: plain(
    'oauth2',
    '`client_secret_basic` (default), `client_secret_post`, `client_secret_jwt`, `private_key_jwt`, or RFC 8705 `tls_client_auth` / `self_signed_tls_client_auth` (the tls_client_* certificate is the proof); with client credentials also `federated_assertion`',
  ),
  client_assertion_key: secret(
    'oauth2',
    'private key (PEM or JWK) that signs the client assertion when token_endpoint_auth=private_key_jwt',
  ),
  client_assertion_key_id: plain(
    'oauth2',
    '`kid` of the client assertion key, as registered at the authorization server',
  ),
  client_assertion_certificate: plain(
    'oauth2',
    'with token_endpoint_auth=private_key_jwt: the certificate (PEM) of client_assertion_key, named by thumbprint in the assertion (x5t, x5t#S256) for servers that look the key up that way (Microsoft Entra ID certificate credentials); a CERTIFICATE block in client_assertion_key does the same',
  ),
  dpop: plain(
    'oauth2_client_credentials, oauth2_refresh_token',
    "`true` to bind access tokens to a key pair made for the run (DPoP, RFC 9449): a proof on every token and API request, the server's nonce followed",
  ),
  client_assertion_file: plain(
    'oauth2',
    "with token_endpoint_auth=federated_assertion: file the platform writes the workload's token to (AKS: the pod's AZURE_FEDERATED_TOKEN_FILE); read again for each token request",
  ),
  service_account_key: secret('service_account_key', 'JSON key file content of the service account'),
  aws_access_key_id: plain('aws', 'AWS access key id', 'header'),
  aws_secret_access_key: secret('aws', 'AWS secret access key'),
  aws_session_token: secret('aws', 'AWS session token of temporary credentials', 'header'),
  aws_region: plain(
    'aws',
    'AWS region, used by sources with no region key of their own (postgres: the region an IAM database token is signed for; default: the one an RDS host name carries; rest: the region requests are signed for; default: the one an AWS host name in base_url carries)',
    'header',
  ),
  aws_service: plain(
    'rest',
    'SigV4 signing name of an API behind AWS IAM that a rest source signs for with an AWS method: execute-api (API Gateway), es (OpenSearch Service), aoss (OpenSearch Serverless), lambda (function URLs); default: what an AWS host name in base_url says',
    'header',
  ),
  aws_role_arn: plain(
    'aws',
    'role to assume through STS (`arn:aws:iam::<account>:role/<name>`); sources then sign with its temporary credentials, renewed before they expire. Required by aws_web_identity',
  ),
  aws_external_id: plain(
    'aws_access_key',
    "external id the role's trust policy requires (sts:ExternalId), sent with AssumeRole",
  ),
  aws_role_session_name: plain('aws', 'role session name CloudTrail shows (default `connector-auth-<ms since epoch>`)'),
  aws_sts_endpoint: plain(
    'aws',
    'STS endpoint URL, e.g. a VPC endpoint (default: AWS STS in aws_region, else us-east-1); https:// (http:// only on loopback)',
    'line',
  ),
  web_identity_token_file: plain(
    'aws_web_identity',
    "file the platform writes the web identity token to (EKS: the pod's AWS_WEB_IDENTITY_TOKEN_FILE); read again at each renewal",
  ),
  container_credentials_url: plain(
    'aws_container_credentials',
    "URL of the container credentials endpoint: the pod's AWS_CONTAINER_CREDENTIALS_FULL_URI (EKS Pod Identity), or http://169.254.170.2 followed by the task's AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS)",
    'line',
  ),
  container_authorization_token_file: plain(
    'aws_container_credentials',
    "file holding the endpoint's authorization token (EKS Pod Identity: the pod's AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE); read again at each renewal",
  ),
  gcp_credential_configuration: plain(
    'gcp_workload_identity',
    'content of the `external_account` credential configuration file (gcloud iam workload-identity-pools create-cred-config), JSON or base64; it names where the workload token is (a file or a URL, or the EC2 instance role), the pool provider and any service account to impersonate',
  ),
  gcp_service_account: plain(
    'gcp_metadata',
    'service account of the workload whose tokens to use: `default` (default) or its email',
  ),
  resource: plain(
    'azure_managed_identity',
    "the resource (audience) the token is for, e.g. `https://management.azure.com/` or the API's application ID URI (required)",
  ),
  azure_client_id: plain(
    'azure_managed_identity',
    'client id of a user-assigned managed identity (default: the system-assigned identity)',
  ),
  azure_object_id: plain(
    'azure_managed_identity',
    'object (principal) id of a user-assigned managed identity, instead of azure_client_id',
  ),
  azure_resource_id: plain(
    'azure_managed_identity',
    'ARM resource id of a user-assigned managed identity, instead of azure_client_id',
  ),
  metadata_endpoint: plain(
    'gcp_metadata, azure_managed_identity, aws_instance_profile',
    'base URL of the instance metadata service (default http://169.254.169.254; on an IPv6-only EC2 instance http://[fd00:ec2::254]); http:// only on a link-local or loopback host',
    'line',
  ),
  signed_url: secret('signed_url', 'presigned URL; secret as a whole (its query string is the credential)', 'line'),
  // session_token (with `username` and `password`): a login request, then its token on every request.
  ...SESSION_TOKEN_KEYS,
  // sources
  base_url: plain('rest', 'base URL of the API; paths are joined to it', 'line'),
  webhook_base_url: plain('webhooks CLI', 'root of the sync webhook interface (default: base_url)', 'line'),
  webhook_auth_method: plain('webhooks CLI', '`bearer` (default) or `basic` for the sync webhook interface'),
  webhook_token: secret('webhooks CLI', 'bearer token of the sync webhook interface', 'header'),
  probe_path: plain(
    'rest, sftp, ftp',
    'path the probe requests (rest) / directory it lists (sftp, ftp; default `.`: the login directory)',
    'line',
  ),
  probe_expect_status: plain('rest', 'healthy probe statuses, comma-separated (default 200)'),
  max_retries: plain(
    'rest, signed-url',
    'how many times a request that failed in passing (408, 429, 500, 502, 503, 504, a reset connection) is sent again, 0 to 10 (default 3); idempotent methods only',
  ),
  host: plain('postgres, mysql, sftp, ftp', 'host name or IP address of the server', 'line'),
  port: plain(
    'postgres, mysql, sftp, ftp',
    'TCP port (postgres: default 5432; mysql: 3306; sftp: 22; ftp: 21, or 990 with ftp_tls=implicit)',
  ),
  database: plain('postgres, mysql', 'database to connect to (required)', 'line'),
  user: plain('postgres, mysql', 'database role (postgres) or account (mysql) to log in as (required)', 'line'),
  mysql_tls: plain(
    'mysql',
    '`required` (default: TLS, certificate and host name checked) or `none` (no TLS; warned on every run)',
  ),
  ftp_tls: plain(
    'ftp',
    '`explicit` (default: AUTH TLS on the plain port, certificate checked), `implicit` (TLS from the first byte, port 990) or `none` (plain FTP: the password in clear; warned on every run)',
  ),
  sslmode: plain(
    'postgres',
    '`verify-full` (default: CA and host name checked), `verify-ca` (CA only), `require` (encrypted, unverified; warned) or `disable` (no TLS; warned)',
  ),
  bucket: plain('s3', 'bucket name (required)', 'line'),
  region: plain('s3', "the bucket's region (default: aws_region, else us-east-1)", 'line'),
  endpoint: plain(
    's3',
    'URL of an S3-compatible server (MinIO, Ceph…); requests are then path-style. Default: AWS',
    'line',
  ),
  prefix: plain('s3', 'key prefix the probe and list() look under, e.g. `exports/`'),
  private_key: secret('ssh_key', 'SSH private key (OpenSSH, PEM or PuTTY file content)'),
  private_key_passphrase: secret('ssh_key', 'passphrase of an encrypted `private_key`'),
  host_key_fingerprint: plain(
    'sftp',
    'expected host key, `SHA256:…` as `ssh-keygen -l` prints it (several: comma-separated); required unless ssh_skip_host_key_check=true',
  ),
  ssh_skip_host_key_check: plain(
    'sftp',
    "`true` to connect without checking the server's host key (logged as a warning on every run)",
  ),
  kerberos_principal: plain(
    'kerberos',
    "the client principal, `alice@EXAMPLE.COM` (default: the keytab's first, or the credential cache's)",
    'line',
  ),
  kerberos_keytab: secret('kerberos', 'base64 of the keytab file (`base64 -w0 client.keytab`)'),
  kerberos_keytab_path: plain('kerberos', 'path of the keytab file, in place of kerberos_keytab (keep it mode 0600)'),
  kerberos_realm_kdc: plain(
    'kerberos',
    "the KDC's host:port (several: comma-separated) where no krb5.conf names the realm's KDC",
  ),
  kerberos_credential_cache: plain(
    'kerberos',
    "an existing credential cache (`FILE:/tmp/krb5cc_1000`) in place of a keytab; default: the environment's (KRB5CCNAME)",
  ),
  kerberos_skip_mutual_authentication: plain(
    'kerberos',
    "`true` to accept an HTTP answer without the server's SPNEGO proof (a proxy that drops it; logged as a warning on every run)",
  ),
};
