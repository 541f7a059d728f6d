// serve's --help and its backends' options, apart from the command so that `main` answers it without
// loading serve and what it imports (the panel's files, the backends' wiring).
import { PASEO_FLAGS_HELP } from './paseo-options.js';

export const SIM_SERVE_HELP = `sim:
  --scenario FILE      a scenario scripting the sim agents of runs started here (gates always wait
                       for a decision)
  --sim-delay MS       each sim agent and check takes MS milliseconds (runs stay active to watch)`;

export const PASEO_SERVE_HELP = `paseo:
${PASEO_FLAGS_HELP}
                       (the start form can choose another provider and model for a run)
  --paseo-keep-agents  keep the agents of runs on the daemon: by default a step agent is archived
                       once its attempt has ended, and a manager agent serve made once its run has
                       ended (archive keeps their conversations)`;

export const KAIROKU_SERVE_HELP = `kairoku (the Kairoku app: runner daemons dial in to claim steps; docs/fleet.md):
  --app-listen HOST:PORT  where runners and their step agents dial in (default 127.0.0.1:7421; port
                       0 picks one). Plain HTTP on loopback only; an address other machines reach
                       needs TLS, and the wildcard must be named (0.0.0.0 or [::]) and have TLS
  --app-url URL        the URL runners and their agents are given, when the one --app-listen makes
                       is not what they dial (the machine's public name, a forwarded port; with a
                       wildcard listen the default names this machine's hostname): https://HOST:PORT
  --tls-cert FILE      the app's certificate (PEM), with --tls-key FILE, its private key
  --tls-self-signed    make a certificate once, keep it in $KAIROKU_PLAYBOOK_HOME/kairoku/tls/, and
                       print its SHA-256 fingerprint for runners' --app-fingerprint
  --app-token-file F   the app credential runners present (default $KAIROKU_APP_TOKEN, else
                       $KAIROKU_PLAYBOOK_HOME/kairoku/token.env, made on first use)
  --repository ID      the repository's id as runners name it (their --repository; default the
                       workspace's real path, which matches only runners on this machine)`;

/** The backends' options, in the order `--backend` lists them (`SERVE_BACKENDS` in serve.ts has the same names). */
export const BACKEND_HELP: Record<string, string> = {
  sim: SIM_SERVE_HELP,
  paseo: PASEO_SERVE_HELP,
  kairoku: KAIROKU_SERVE_HELP,
};

export const SERVE_HELP = `Usage: kairoku-playbook serve [DIR] [--listen 127.0.0.1:7420] [--backend ${Object.keys(BACKEND_HELP).join('|')}]
                              [--panel-dir DIR] [--archive-after DAYS] [the backend's options]
       kairoku-playbook serve [DIR] --login-url

Serves the Playbooks panel and its HTTP API (docs/serve.md) for the workspace DIR (default: the
current folder), and owns every active run of it: it drives them (autopilot), applies timeouts, keeps
gates open until someone decides them in the panel or through the API, and is the only writer of
their run files. Runs a killed serve left are taken up again when the next one starts.

It prints a login URL (http://127.0.0.1:PORT/?login=…): opening it logs one browser in (an
HttpOnly session cookie of this serve's own), once, within ten minutes; \`serve --login-url\` prints
another. API clients send the API token as Authorization: Bearer; it is in
$KAIROKU_PLAYBOOK_HOME/serve/ (mode 0600) with the URL while serve runs, so \`run\`, \`runs\` and
\`mcp\` find it.
Ctrl-C stops it; the runs stay on disk.

Options:
  --listen HOST:PORT   where to listen (default 127.0.0.1:7420; port 0 picks a free one); loopback
                       only: there is no TLS, so an address other machines can reach is refused
  --port N             the same as --listen 127.0.0.1:N (kairoku-playbook panel --port N)
  --backend NAME       the backend runs are started on: sim (the default: scripted agents, no
                       model), paseo (agents of a Paseo daemon, docs/paseo.md) or kairoku (Kairoku
                       runner daemons claim the steps, docs/fleet.md)
  --panel-dir DIR      serve the panel's files from DIR (index.html, panel.js, panel.css) instead of
                       the ones built into this program
  --archive-after DAYS archive the workspace's runs that ended more than DAYS days ago, at start and
                       every hour (hidden from the list unless asked for; never deleted: runs prune
                       deletes)
  --login-url          print a new login URL of the serve running for the folder, and exit
  -h, --help           this help
${Object.values(BACKEND_HELP).join('\n')}`;

/** `panel`: serve under the contract's name (SPEC §7); its options are serve's, `--port` first. */
export const PANEL_HELP = `Usage: kairoku-playbook panel [DIR] [--port N] [serve's options]

Serves the Playbooks panel for the workspace DIR (default: the current folder) at
http://127.0.0.1:N/ and prints the URL that logs a browser in. It is kairoku-playbook serve under the
contract's name: the panel's API, the runs it owns and every other option are serve's
(kairoku-playbook serve --help). Ctrl-C stops it; the runs stay on disk.

Options:
  --port N             the port on 127.0.0.1 (default 7420; 0 picks a free one)
  -h, --help           this help`;
