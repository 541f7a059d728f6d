import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { flag, parseArgs } from '../args.js';
import { assetText } from '../assets.js';
import { commandHere, shellWord } from '../command-here.js';
import { displayPath } from '../discover.js';
import { UsageError, writeUserFile } from '../io.js';
import type { CommandIo } from '../io.js';
import type { ParsedArgs } from '../args.js';
import { MANAGER_TOOLS } from '@kairoku-playbook/runtime/tool-names';
import { writeMcpSetup } from './init-mcp.js';
import type { McpSetup } from './init-mcp.js';

export const INIT_HELP = `Usage: kairoku-playbook init [DIR] [--force] [--paseo-host HOST:PORT] [--paseo-password-file F]
       kairoku-playbook init --mcp [DIR] [--paseo-host HOST:PORT] [--paseo-password-file F]

Writes a first playbook into DIR (default: the current folder), ready to check, test and run:

  playbooks/change.yml          plan, implement and review a change (review can send it back)
  playbooks/change.test.yml     its playbook test (kairoku-playbook test)
  .kairoku/playbook.schema.json the playbook JSON Schema, for editors without the extension
  .vscode/settings.json         points VS Code's YAML support at that schema
  .vscode/extensions.json       recommends the kairoku-playbook extension
  .mcp.json, .claude/settings.json
                                the manager's MCP server (the mcp command, on Paseo) for
                                every Claude agent started in DIR, enabled and its tools
                                allowed (merged into files already there); codex's lines
                                are printed for ~/.codex/config.toml

--mcp writes only the last two, into a repository that has playbooks already.

Then: kairoku-playbook check, kairoku-playbook test, kairoku-playbook run playbooks/change.yml (the
line it prints names the CLI as it runs there: npx kairoku-playbook in a repository that installed it).
A file that is already there is never overwritten (init names them and writes nothing) unless
--force is given.

Options:
  --force     overwrite files that are already there
  --mcp       only the agents' MCP server files (.mcp.json, .claude/settings.json), merged
  --paseo-host HOST:PORT
              the Paseo daemon the server reaches (default: 127.0.0.1:6767, or $PASEO_HOST)
  --paseo-password-file F
              the file the server reads the daemon's password from (never the password itself)
  -h, --help  this help

Exit codes: 0 written, 2 usage errors, files already there, or a file that could not be written.`;

const PLAYBOOK = `# yaml-language-server: $schema=../.kairoku/playbook.schema.json
# A first playbook: kairoku-playbook check, kairoku-playbook test, kairoku-playbook run playbooks/change.yml
# The language: docs/reference.md of kairoku-playbook (kairoku-playbook schema, explain CODE).
version: 1
title: Plan, implement and review a change

inputs:
  task:
    type: string
    description: What to change
    multiline: true

limits:
  max_loops: 3

steps:
  plan:
    role: planner
    prompt: |
      Plan this change, in small steps, and list the files it touches:
      \${{ inputs.task }}
    outputs:
      plan: string
      files: list<string>

  implement:
    needs: [plan]
    role: implementer
    prompt: |
      Implement this plan, touching only \${{ join(steps.plan.outputs.files, ', ') }}:
      \${{ steps.plan.outputs.plan }}
    outputs:
      summary: string

  review:
    needs: [implement]
    role: reviewer
    prompt: |
      Review the change against its plan. Approve it, or ask for changes and say which.
      Plan: \${{ steps.plan.outputs.plan }}
      What was done: \${{ steps.implement.outputs.summary }}
    outcomes:
      approved: next
      changes_requested: { loop: implement, max: 2, feedback: '\${{ report.summary }}' }

outputs:
  summary: \${{ steps.implement.outputs.summary }}
`;

const PLAYBOOK_TEST = `# The playbook test of change.yml: a scenario for the sim backend (no model) and what the run must
# do. Run it with: kairoku-playbook test
name: review asks for changes once, then approves
inputs:
  task: add a --verbose flag
steps:
  plan:
    - { outcome: done, outputs: { plan: add the flag and document it, files: [src/cli.ts, README.md] } }
  implement: # reports per successive attempt; past the list, the last one repeats
    - { outcome: done, outputs: { summary: added --verbose } }
    - { outcome: done, outputs: { summary: added --verbose and its README line } }
  review:
    - { outcome: changes_requested, summary: document the flag in the README }
    - { outcome: approved }
expect:
  status: completed
  steps:
    plan: { attempts: [done] }
    implement: { attempts: 2 }
    review: { attempts: [changes_requested, approved] }
  loops: { review.changes_requested: 1 }
  outputs: { summary: added --verbose and its README line }
`;

const SETTINGS = `${JSON.stringify(
  {
    'yaml.schemas': {
      './.kairoku/playbook.schema.json': [
        '*.playbook.yml',
        '*.playbook.yaml',
        'playbooks/*.yml',
        'playbooks/*.yaml',
        '.kairoku/playbooks/*.yml',
        '.kairoku/playbooks/*.yaml',
      ],
    },
  },
  null,
  2,
)}\n`;

/** The extension's id (publisher.name of vscode-extension/package.json). */
export const EXTENSION_ID = 'kairoku.kairoku-playbook-vscode';

const EXTENSIONS = `${JSON.stringify({ recommendations: [EXTENSION_ID] }, null, 2)}\n`;

/** What init writes, relative to DIR. */
export function initFiles(): { path: string; text: string }[] {
  return [
    { path: 'playbooks/change.yml', text: PLAYBOOK },
    { path: 'playbooks/change.test.yml', text: PLAYBOOK_TEST },
    { path: '.kairoku/playbook.schema.json', text: assetText('playbookSchema') },
    { path: '.vscode/settings.json', text: SETTINGS },
    { path: '.vscode/extensions.json', text: EXTENSIONS },
  ];
}

export function runInit(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(
    argv,
    {
      force: 'boolean',
      mcp: 'boolean',
      'paseo-host': 'string',
      'paseo-password-file': 'string',
      help: 'boolean',
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${INIT_HELP}\n`);
    return 0;
  }
  if (args.positionals.length > 1)
    throw new UsageError(`init takes one folder, not ${args.positionals.length}`);
  const folder = resolve(io.cwd, args.positionals[0] ?? '.');
  if (existsSync(folder) && !statSync(folder).isDirectory())
    throw new UsageError(`${args.positionals[0]} is not a folder`);
  const mcp = mcpSetup(args, folder, io);
  if (args.flags.has('mcp')) {
    mkdirSync(folder, { recursive: true });
    writeMcpSetup(mcp, io);
    return 0;
  }
  const files = initFiles().map((file) => ({ ...file, target: join(folder, file.path) }));
  const present = files.filter((file) => existsSync(file.target));
  if (present.length && !args.flags.has('force')) {
    const names = present.map((file) => displayPath(file.target, io.cwd));
    throw new UsageError(
      `init writes nothing: ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} already there (--force overwrites)`,
    );
  }
  for (const file of files) {
    mkdirSync(dirname(file.target), { recursive: true });
    writeUserFile(file.target, file.text);
    io.stdout(`wrote ${displayPath(file.target, io.cwd)}\n`);
  }
  writeMcpSetup(mcp, io);
  const into = args.positionals[0] === undefined ? '' : `cd ${shellWord(args.positionals[0])} && `;
  // Commands that work where init ran: `npx kairoku-playbook` in a repository that installed it.
  const cli = commandHere(folder);
  io.stdout(
    `\nNext: ${into}${cli} check && ${cli} test && ${cli} run playbooks/change.yml --input task="add a --verbose flag"\n`,
  );
  return 0;
}

/** The agents' MCP server setup from init's flags: the daemon, the password's file, the manager's tools. */
function mcpSetup(args: ParsedArgs, folder: string, io: CommandIo): McpSetup {
  const host = flag(args, 'paseo-host');
  const passwordFile = flag(args, 'paseo-password-file');
  return {
    folder,
    tools: MANAGER_TOOLS,
    ...(host !== undefined ? { host } : {}),
    ...(passwordFile !== undefined ? { passwordFile: resolve(io.cwd, passwordFile) } : {}),
  };
}
