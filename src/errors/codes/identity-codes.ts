/** Codes of SourceIdentityError (exit 5): the source could not prove it is the one configured. */
export const IDENTITY_CODES = {
  tls_untrusted: 'the server certificate is not signed by a trusted CA',
  tls_host_mismatch: 'the server certificate is for another host name',
  ssh_host_key_mismatch: 'the SSH host key does not match the fingerprint configured',
  kerberos_mutual_authentication_failed: 'the server failed Kerberos mutual authentication',
  postgres_server_signature: "PostgreSQL's SCRAM server signature is wrong",
  postgres_tls_not_supported: 'the PostgreSQL server does not support TLS',
  mysql_tls_not_supported: 'the MySQL server does not support TLS',
  ftp_tls_not_offered: 'the FTP server does not offer TLS',
} as const;
