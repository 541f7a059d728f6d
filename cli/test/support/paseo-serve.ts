/**
 * `kairoku-playbook serve --backend paseo` as the serve-paseo tests start and call it: the built CLI in
 * a child process, on a port it picks, with the home given and no Paseo variables of the caller's.
 */
import type { ChildProcess } from 'node:child_process';
import { startServe } from '../../../test/kit/index.js';

export interface Serving {
  child: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
  /** the exit code, once the process has exited */
  exited: Promise<number | null>;
}

/** Starts serve (the test kit's `startServe`); resolves once it prints its login URL. The child is pushed onto `children`. */
export async function startPaseoServe(
  children: ChildProcess[],
  workspace: string,
  home: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Serving> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (env.PASEO_PASSWORD === undefined) delete childEnv.PASEO_PASSWORD;
  delete childEnv.PASEO_HOST;
  const served = await startServe({ workspace, home, args: ['--backend', 'paseo', ...extra], env: childEnv });
  children.push(served.child);
  return served;
}

/** A request to serve's API with its bearer token: GET without a body, POST with one. */
export async function callServe<T>(
  serving: Serving,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${serving.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${serving.token}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/**
 * The small playbook the serve-paseo tests run: `plan`, then `work` (with `retries` when given), then,
 * with `gate`, the gate `ship` (approve: next, reject: fail); `work: false` keeps `plan` alone.
 */
export function relayPlaybook(options: { work?: boolean; retries?: number; gate?: boolean } = {}): string {
  const work = options.work ?? true;
  const lines = [
    'version: 1',
    'id: relay',
    'title: Relay',
    'steps:',
    '  plan:',
    '    role: implementer',
    '    prompt: Plan the work',
  ];
  if (work)
    lines.push(
      '  work:',
      '    needs: [plan]',
      '    role: implementer',
      '    prompt: Do the work',
      ...(options.retries !== undefined ? [`    retries: ${options.retries}`] : []),
    );
  if (options.gate)
    lines.push(
      '  ship:',
      `    needs: [${work ? 'work' : 'plan'}]`,
      '    gate:',
      '      title: Ship it?',
      '      choices: { approve: next, reject: fail }',
    );
  return `${lines.join('\n')}\n`;
}
