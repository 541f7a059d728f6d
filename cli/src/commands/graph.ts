import { flag, oneOf, parseArgs } from '../args.js';
import { graphDot, graphMermaid, graphText } from '../graph-format.js';
import type { CommandIo } from '../io.js';
import { compileFile } from './compile.js';

export const GRAPH_HELP = `Usage: kairoku-playbook graph FILE [--format text|mermaid|dot]

Prints the step graph of a playbook: rows as the panel lays them out (each step one row below its
deepest need), needs as edges, loops as dashed edges back up the graph.

Options:
  --format text|mermaid|dot   output format (default text)
  -h, --help                  this help`;

export function runGraph(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { format: 'string', help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${GRAPH_HELP}\n`);
    return 0;
  }
  const format = oneOf(flag(args, 'format'), ['text', 'mermaid', 'dot'] as const, 'format', 'text');
  const ir = compileFile(args.positionals, io, 'graph');
  if (!ir) return 1;
  io.stdout(format === 'mermaid' ? graphMermaid(ir) : format === 'dot' ? graphDot(ir) : graphText(ir));
  return 0;
}
