import { main } from './main.js';

const env = process.env;
const wantsColor = (stream: NodeJS.WriteStream) =>
  env.NO_COLOR === undefined &&
  (env.FORCE_COLOR !== undefined ? env.FORCE_COLOR !== '0' : stream.isTTY === true);

// Output is gathered and written once at the end, and the streams drain before exiting, so piped
// output is never cut short. A command that answers later (a live run) writes as it goes instead.
let direct = false;
let out = '';
let err = '';
const code = main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => (direct ? process.stdout.write(text) : (out += text)),
  stderr: (text) => (direct ? process.stderr.write(text) : (err += text)),
  color: wantsColor(process.stdout),
  colorStderr: wantsColor(process.stderr),
});
if (typeof code === 'number') finish(code);
else {
  direct = true;
  if (err) process.stderr.write(err);
  if (out) process.stdout.write(out);
  out = err = '';
  code.then(
    (exit) => process.stdout.write('', () => process.exit(exit)),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`, () => process.exit(70));
    },
  );
}

function finish(exit: number): void {
  if (err) process.stderr.write(err);
  if (out) process.stdout.write(out, () => process.exit(exit));
  else process.exitCode = exit;
}
