import { main } from './main.js';

const env = process.env;
const wantsColor = (stream: NodeJS.WriteStream) =>
  env.NO_COLOR === undefined &&
  (env.FORCE_COLOR !== undefined ? env.FORCE_COLOR !== '0' : stream.isTTY === true);

let out = '';
let err = '';
const code = main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (text) => (out += text),
  stderr: (text) => (err += text),
  color: wantsColor(process.stdout),
  colorStderr: wantsColor(process.stderr),
});
// Write once and let the streams drain before exiting, so piped output is never cut short.
if (err) process.stderr.write(err);
if (out) process.stdout.write(out, () => process.exit(code));
else process.exitCode = code;
