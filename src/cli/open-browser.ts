import type { Logger } from '../log/index.js';

/**
 * Opens a URL in the person's browser: `$BROWSER` when set (the convention xdg-utils and Python's
 * webbrowser follow), else the platform's opener. Fire and forget: the URL is printed as well, so
 * a machine without a browser (SSH session, container) only loses the convenience.
 */
export function openBrowser(url: URL, log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url.href]]
    : process.platform === 'darwin'
      ? ['open', [url.href]]
      : process.platform === 'win32'
        ? // Not `cmd /c start`: cmd would read the URL's `&` as a command separator.
          ['rundll32', ['url.dll,FileProtocolHandler', url.href]]
        : ['xdg-open', [url.href]];
  // Loaded here, not imported: this file shares a chunk with every command's modules, and
  // child_process (with dgram and the rest it loads) is 1.7 ms of a start that opens no browser.
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', (error: NodeJS.ErrnoException) =>
    log.warning(
      `could not open a browser (${command}: ${error.code ?? error.message}); open the URL printed above yourself`,
    ),
  );
  child.unref();
}
