import type { FTPContext, FTPResponse } from 'basic-ftp';
import { prepareSshTunnel, type SshTunnelContext, type SshTunnelKeys } from '../../network/index.js';
import type { FtpEndpoint } from './ftp-settings.js';

/**
 * Passive transfers through the SSH tunnel. The control connection goes to the tunnel's listener;
 * a data connection must reach the port the server names in its EPSV answer, on the server, which
 * only the bastion can reach: each transfer gets a tunnel of its own to that port (the same bastion,
 * keys and host key rule), closed with the data connection. A bastion login per transfer is slower
 * than one shared SSH connection, and keeps the network layer's tunnel one destination each.
 */
export function passiveThroughTunnel(
  k: SshTunnelKeys,
  endpoint: FtpEndpoint,
  context: SshTunnelContext,
): (ftp: FTPContext) => Promise<FTPResponse> {
  return async (ftp) => {
    // basic-ftp opens the data connection (TLS resumed from the control connection's session) here;
    // its package has no "exports" map, and this function is the one its own passive modes call.
    // Imported here, not at the top: basic-ftp is an optional peer, and the ftp source reports its
    // absence when it connects (this runs only once its client is open).
    const { connectForPassiveTransfer, parseEpsvResponse } = await import('basic-ftp/dist/transfer.js');
    const answer = await ftp.request('EPSV');
    const port = parseEpsvResponse(answer.message);
    const tunnel = await prepareSshTunnel(k, { host: endpoint.host, port }, context);
    if (!tunnel) throw new Error('passive transfer through a tunnel without ssh_tunnel_host');
    try {
      const local = await tunnel.open();
      await connectForPassiveTransfer(local.host, local.port, ftp);
    } catch (error) {
      await tunnel.close();
      throw tunnel.takeFailure() ?? error;
    }
    ftp.dataSocket?.once('close', () => void tunnel.close());
    return answer;
  };
}
