import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start, type HttpApiPeer } from '../peers/http-api.js';
import type { ServeProcess } from './fivetran/support.js';

/**
 * What a test of every host needs: a REST peer that takes one bearer token, and a project holding
 * the given connector in a temporary directory; `stop` ends the peer, a serve the test started and
 * the directory. `configuration(token)` is the bearer configuration against the peer.
 */
export interface BearerProject {
  peer: HttpApiPeer;
  root: string;
  project: string;
  serve?: ServeProcess;
  configuration(token: string): Record<string, string>;
  stop(): Promise<void>;
}

export async function bearerProject(name: string, token: string, connector: string): Promise<BearerProject> {
  const [peer, root] = await Promise.all([
    start({ auth: { kind: 'bearer', token } }),
    mkdtemp(join(tmpdir(), `connector-auth-${name}-`)),
  ]);
  const project = join(root, name);
  await mkdir(project);
  await writeFile(join(project, 'connector.ts'), connector);
  const made: BearerProject = {
    peer,
    root,
    project,
    configuration: (value) => ({ auth_method: 'bearer', token: value, base_url: peer.url, probe_path: 'health' }),
    stop: async () => {
      await made.serve?.stop();
      await peer.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
  return made;
}
