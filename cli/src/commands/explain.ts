import { CODES } from '@kairoku-playbook/compiler';
import { parseArgs } from '../args.js';
import { assetText } from '../assets.js';
import { helpUri, isCode, referenceSection, type Code } from '../diagnostics-reference.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

export const EXPLAIN_HELP = `Usage: kairoku-playbook explain [CODE]

Prints the reference of a diagnostic code, as docs/diagnostics.md has it: what it means, a playbook
that triggers it, what check prints for it, and how to fix it; then where it is online. Without
CODE, lists every code with its severity and title. CODE may be PB205, pb205 or 205.

Options:
  -h, --help  this help`;

export function runExplain(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${EXPLAIN_HELP}\n`);
    return 0;
  }
  if (args.positionals.length > 1)
    throw new UsageError(`explain takes one code, not ${args.positionals.length}`);
  const [given] = args.positionals;
  if (given === undefined) {
    io.stdout(codeTable());
    return 0;
  }
  const code = /^\d{3}$/.test(given) ? `PB${given}` : given.toUpperCase();
  if (!isCode(code))
    throw new UsageError(
      `there is no code ${given}${nearest(code)}; kairoku-playbook explain lists them all`,
    );
  const section = referenceSection(assetText('diagnosticsReference'), code);
  if (section === undefined) throw new Error(`the diagnostics reference has no section for ${code}`);
  io.stdout(`${section}\n\nOnline: ${helpUri(code)}\n`);
  return 0;
}

function codeTable(): string {
  const rows = (Object.keys(CODES) as Code[]).map(
    (code) => `${code}  ${CODES[code].severity.padEnd(7)}  ${CODES[code].title}`,
  );
  return `${rows.join('\n')}\n\nkairoku-playbook explain CODE prints a code's reference.\n`;
}

/** " (did you mean PB205?)" for a code one digit away from a real one. */
function nearest(code: string): string {
  if (!/^PB\d{3}$/.test(code)) return '';
  const close = (Object.keys(CODES) as Code[]).filter(
    (known) => [...known].filter((char, i) => char !== code[i]).length === 1,
  );
  return close.length ? ` (did you mean ${close.join(' or ')}?)` : '';
}
