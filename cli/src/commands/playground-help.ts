// playground's --help, apart from the command so that `main` answers it without loading the command's module.
export const PLAYGROUND_HELP = `Usage: kairoku-playbook playground [FILE] [--listen 127.0.0.1:0]

Serves the playground on this machine and prints its URL: a page where a playbook is checked as it is
typed (the diagnostics of check, the graph, the IR, explore's bound), with the docs' examples and
shareable links. Everything runs in the page; the server only hands it its three files, and it works
as well opened straight from docs/playground/index.html. With FILE, the printed URL opens that
playbook (carried in the link's fragment, as a shared link does). Runs until Ctrl-C.

Options:
  --listen HOST:PORT   where to listen (default 127.0.0.1:0, a free port); loopback only
  -h, --help           this help`;
