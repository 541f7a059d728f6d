// The entry of kairoku-playbook.complete.cjs: `__complete`, what the shells' completion scripts run at every
// TAB (launcher.ts runs it for that command). Only completion's own modules: no compiler, runtime or YAML
// parser, so a TAB costs little more than starting Node.
import { runComplete } from './commands/completion.js';
import type { CommandIo } from './io.js';

let out = '';
const io: CommandIo = {
  cwd: process.cwd(),
  stdout: (text) => (out += text),
  stderr: (text) => void process.stderr.write(text),
  color: false,
  colorStderr: false,
};
try {
  process.exitCode = runComplete(process.argv.slice(3), io);
  process.stdout.write(out);
} catch (error) {
  // A shell script reads nothing from a failed completion: the reason goes to standard error alone.
  process.stderr.write(
    `kairoku-playbook __complete: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 70;
}
