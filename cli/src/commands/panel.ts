// `panel [--port N]` (the contract's name for it): serve on 127.0.0.1:N. Kept apart from serve's module,
// so that `main` answers its help and its usage errors without loading serve.
import { UsageError } from '../usage-error.js';

export const PANEL_HELP = `Usage: kairoku-playbook panel [DIR] [--port N] [serve's options]

Serves the Playbooks panel for the workspace DIR (default: the current folder) at
http://127.0.0.1:N/ and prints the URL that logs a browser in. It is kairoku-playbook serve: the
panel's API, the runs it owns and every other option are serve's (kairoku-playbook serve --help);
panel --port N is serve --listen 127.0.0.1:N, on loopback only. Ctrl-C stops it; the runs stay on disk.

Options:
  --port N             the port (default 7420; 0 picks a free one)
  -h, --help           this help`;

/** `panel`'s arguments as serve's: `--port N` (or `--port=N`) becomes `--listen 127.0.0.1:N`. */
export function panelArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  let port: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg === '--listen' || arg.startsWith('--listen='))
      throw new UsageError(
        'panel takes --port N; for another address use kairoku-playbook serve --listen HOST:PORT',
      );
    if (arg !== '--port' && !arg.startsWith('--port=')) {
      out.push(arg);
      continue;
    }
    if (arg.startsWith('--port=')) port = arg.slice('--port='.length);
    else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-'))
        throw new UsageError('option --port needs a value');
      port = next;
      i++;
    }
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
      throw new UsageError(`--port takes a port number from 0 to 65535 (0 picks a free one), not "${port}"`);
  }
  return port === undefined ? out : [...out, '--listen', `127.0.0.1:${Number(port)}`];
}
