import { USAGE, parseRunnerArgs } from './options.js';
import { EXIT, Runner } from './runner.js';
import { forTerminal } from '@kairoku-playbook/machine';

/**
 * The reference runner as a command (`kairoku-playbook runner …`; `node runtime/dist/runner/main.js …` runs it
 * directly): parses the arguments, starts the daemon, prints one JSON line `{"ready":true,…}` on stdout once
 * it listens, stops on SIGTERM or SIGINT (tearing every dispatch down), and resolves to the exit code.
 */
export async function runRunner(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const options = parseRunnerArgs(argv);
  if (typeof options === 'string') {
    process.stderr.write(`kairoku runner: ${options}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const runner = new Runner(options);
  let capacityUrl: string;
  try {
    capacityUrl = await runner.start();
  } catch (error) {
    process.stderr.write(`kairoku runner: ${forTerminal((error as Error).message)}\n`);
    return EXIT.failed;
  }
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`kairoku runner: ${signal}: tearing down and stopping\n`);
    // A signal handler cannot wait; runner.wait() below resolves once the shutdown is done.
    void runner.shutdown(`the runner received ${signal}`);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.stdout.write(
    `${JSON.stringify({ ready: true, runner: options.id, capacity: capacityUrl, workDir: options.workDir })}\n`,
  );
  const code = await runner.wait();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  return code;
}
