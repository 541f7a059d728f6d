import { runRunner } from './run-runner.js';
import { EXIT } from './runner.js';
import { forTerminal } from '@kairoku-playbook/machine';

// `node runtime/dist/runner/main.js --app … --token-file … --repo …`: the reference runner daemon.
runRunner(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`kairoku runner: ${forTerminal((error as Error).stack ?? String(error))}\n`);
    process.exit(EXIT.failed);
  },
);
