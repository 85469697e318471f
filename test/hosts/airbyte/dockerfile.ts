/**
 * The templates' Dockerfile read as a builder reads it, for the tests that check the image without a
 * container engine (image-entrypoint.test.ts, and the acceptance tests' image check).
 */
export interface Dockerfile {
  from: string;
  args: Record<string, string>;
  env: Record<string, string>;
  workdir: string;
  user: string;
  expose: string[];
  entrypoint: string[];
  cmd: string[];
  run: string[];
}

/** The instructions this Dockerfile uses, read as a builder reads them (continuations joined, comments dropped). */
export function parseDockerfile(text: string): Dockerfile {
  const out: Dockerfile = {
    from: '',
    args: {},
    env: {},
    workdir: '',
    user: '',
    expose: [],
    entrypoint: [],
    cmd: [],
    run: [],
  };
  const lines = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  for (const line of lines) {
    const [, instruction, rest] = /^(\w+)\s+(.*)$/.exec(line.trim())!;
    switch (instruction!.toUpperCase()) {
      case 'FROM':
        out.from = rest!;
        break;
      case 'ARG': {
        const [k, v] = rest!.split('=');
        out.args[k!] = v ?? '';
        break;
      }
      case 'ENV':
        for (const [, k, v] of rest!.matchAll(/(\w+)=("[^"]*"|\S+)/g))
          out.env[k!] = v!.startsWith('"') ? v!.slice(1, -1) : v!;
        break;
      case 'WORKDIR':
        out.workdir = rest!;
        break;
      case 'USER':
        out.user = rest!;
        break;
      case 'EXPOSE':
        out.expose.push(...rest!.split(/\s+/));
        break;
      case 'ENTRYPOINT':
        out.entrypoint = JSON.parse(rest!) as string[];
        break;
      case 'CMD':
        out.cmd = JSON.parse(rest!) as string[];
        break;
      case 'RUN':
        out.run.push(rest!);
        break;
    }
  }
  return out;
}
