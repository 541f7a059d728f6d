/**
 * `kairoku-playbook serve --backend paseo` as the serve-paseo tests start and call it: the built CLI in
 * a child process, on a port it picks, with the home given and no Paseo variables of the caller's.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { findServe } from '@kairoku-playbook/runtime/serve';

const cli = new URL('../../dist/kairoku-playbook.js', import.meta.url).pathname;

export interface Serving {
  child: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
  /** the exit code, once the process has exited */
  exited: Promise<number | null>;
}

/** Starts serve; resolves once it prints its login URL. The child is pushed onto `children`. */
export function startPaseoServe(
  children: ChildProcess[],
  workspace: string,
  home: string,
  extra: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Serving> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, KAIROKU_PLAYBOOK_HOME: home, ...env };
  if (env.PASEO_PASSWORD === undefined) delete childEnv.PASEO_PASSWORD;
  delete childEnv.PASEO_HOST;
  const child = spawn(
    process.execPath,
    [cli, 'serve', workspace, '--listen', '127.0.0.1:0', '--backend', 'paseo', ...extra],
    { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise<Serving>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // (the API token is in serve's discovery file, written before it prints the login URL)
      const match = /login URL: (http:\/\/127\.0\.0\.1:\d+)\/\?login=\S+/.exec(out);
      const info = match ? findServe(home, realpathSync(workspace)) : undefined;
      if (match && info) resolve({ child, url: match[1]!, token: info.token, stderr: () => err, exited });
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before it listened: ${err}`)));
  });
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
