import { VERSION } from './version.js';

/** `kairoku-playbook --help`: the commands. */
export const HELP = `kairoku-playbook ${VERSION}: check, compile, graph, run and test playbooks for teams of AI coding agents

Usage: kairoku-playbook COMMAND [options]

Commands:
  check [PATH...]     check playbooks and print diagnostics (text, json, sarif, github)
  format [PATH...]    format playbooks with Prettier's YAML printer (--check: list the unformatted)
  compile FILE        print the validated execution IR as JSON
  graph FILE          print the step graph (text, mermaid, dot)
  diff BASE HEAD      what a change does to playbooks' power: grants, gates, loops, secrets (git or files)
  explore FILE        explore every run: most attempts per step, worst-case agent turns, PB310, PB311
  run FILE            run a playbook: on the sim backend (scripted or generated agents, no model),
                      on a Paseo daemon (--backend paseo) or on Kairoku runners (--backend kairoku)
  runs [list|show|cancel|pause|resume|restart|decide|archive|prune]
                      list saved runs, show one, cancel, pause, resume, restart from a step,
                      decide a gate, archive, delete old ones
  test [PATH...]      run playbook tests (*.test.yml: a scenario and what to expect)
  init [DIR]          write a first playbook, its test and editor settings
  lsp --stdio         start the language server (LSP over stdin/stdout)
  mcp                 serve the manager protocol over MCP (stdio): any MCP agent can manage runs
  serve [DIR]         serve the Playbooks panel and its HTTP API; owns the workspace's active runs
  panel [--port N]    serve, on 127.0.0.1:N: the panel at http://127.0.0.1:N/
  playground [FILE]   serve the playground page: check, graph and explore a playbook as it is typed
  runner --app URL    the reference Kairoku runner daemon: claims steps from run --backend kairoku
  explain [CODE]      print a diagnostic code's reference (what it means, an example, the fix)
  schema [--ir]       print the JSON Schema of playbooks (for editors), or of the IR
  help [COMMAND]      this help, or a command's (as COMMAND --help)
  completion SHELL    print the shell completion script for bash, zsh or fish

Run kairoku-playbook help COMMAND for a command's options; kairoku-playbook --version prints the
versions of the CLI, of the playbook language and of the IR.`;
