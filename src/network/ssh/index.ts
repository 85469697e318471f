// SSH: the tunnel through a bastion, and what it shares with the sftp source and the ssh_key method
// (the host-key rule, the private-key reader, the unattended login and what a refusal means).
export { SshTunnel } from './ssh-tunnel.js';
export { prepareSshTunnel, sshTunnelKeys } from './prepare-ssh-tunnel.js';
export type { SshTunnelContext, SshTunnelKeys } from './prepare-ssh-tunnel.js';
export type { TunnelDestination } from './ssh-tunnel-failures.js';
export { checkHostKeyRule, hostKeyCheck, hostKeyMismatch, fingerprintList, sshFingerprint } from './ssh-host-key.js';
export type { HostKeyRule, HostKeyCheck, HostKeyPeer, PresentedHostKey } from './ssh-host-key.js';
export { readSshPrivateKey } from './ssh-private-key.js';
export type { SshPrivateKey, SshPrivateKeyNames } from './ssh-private-key.js';
export { sshLogin } from './ssh-login.js';
export type { LoginRecord, SshAuthHandler, SshLoginSecret } from './ssh-login.js';
export { loginRefused } from './ssh-login-refusal.js';
export type { LoginTerms } from './ssh-login-refusal.js';
