import { request } from 'node:http';
import { forTerminal, isEnded } from '@kairoku-playbook/runtime';
import type { RunStatus, ServeInfo } from '@kairoku-playbook/runtime';
import type { CommandIo } from '../io.js';

/**
 * How `run` and `runs` go through the `serve` of a workspace when one is up (docs/serve.md): its API,
 * with the bearer token from its discovery file. A typed refusal is printed as its sentence.
 */
async function callServe(
  serve: ServeInfo,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${serve.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${serve.token}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The refusal's sentence of an answer that is one, or undefined. */
function refusalInAnswer(answer: { body: Record<string, unknown> }): string | undefined {
  const refusal = answer.body.refusal as { message?: unknown } | undefined;
  return typeof refusal?.message === 'string' ? refusal.message : undefined;
}

/** A serve that cannot be reached: said, and nothing is done (exit 2). */
function unreachable(serve: ServeInfo, error: unknown, io: CommandIo): number {
  io.stderr(
    `kairoku-playbook: the serve of this workspace (process ${serve.pid}, ${serve.url}) does not answer: ${(error as Error).message}\n`,
  );
  return 2;
}

/**
 * An operator's action on a run through `serve`: the run's status afterwards, or the refusal (exit 1).
 * A serve that cannot be reached is said, and the action is not taken (exit 2).
 */
export async function operateThroughServe(
  serve: ServeInfo,
  id: string,
  action: 'cancel' | 'pause' | 'resume' | 'archive' | 'restart' | `gates/${string}`,
  body: Record<string, unknown>,
  io: CommandIo,
): Promise<number> {
  let answer;
  try {
    const path = action.startsWith('gates/')
      ? `gates/${encodeURIComponent(action.slice('gates/'.length))}`
      : action;
    answer = await callServe(serve, 'POST', `/api/v1/runs/${encodeURIComponent(id)}/${path}`, body);
  } catch (error) {
    return unreachable(serve, error, io);
  }
  const refused = refusalInAnswer(answer);
  if (refused !== undefined) {
    io.stderr(`kairoku-playbook: run ${id}: ${forTerminal(refused)}\n`);
    return answer.status === 404 ? 2 : 1;
  }
  const run = answer.body.run as { status?: string; archived?: boolean } | undefined;
  const said = action === 'archive' ? 'archived' : (run?.status ?? 'changed');
  io.stdout(`run ${id} ${said} (through serve at ${serve.url})\n`);
  return 0;
}

/**
 * Follows one run through the serve's event stream until it ends; `onChange` sees each of its
 * writes (status, open gates). Resolves with the run's last status.
 */
function followRun(
  serve: ServeInfo,
  id: string,
  onChange: (run: { status: string; waiting: number }) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const req = request(`${serve.url}/api/v1/events`, {
      headers: { Authorization: `Bearer ${serve.token}` },
    });
    const finish = (status: string) => {
      req.destroy();
      resolve(status);
    };
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`the event stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      // The run may have ended before the stream opened: ask once, now that no write can be missed.
      void callServe(serve, 'GET', `/api/v1/runs/${encodeURIComponent(id)}`).then((answer) => {
        const run = answer.body.run as { status: RunStatus; waiting: number } | undefined;
        if (run) {
          onChange(run);
          if (isEnded(run.status)) finish(run.status);
        }
      }, reject);
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!/^event: run$/m.test(block) || data === undefined) continue;
          const run = JSON.parse(data) as { id: string; status: RunStatus; waiting: number };
          if (run.id !== id) continue;
          onChange(run);
          if (isEnded(run.status)) finish(run.status);
        }
      });
      res.on('end', () => reject(new Error('the serve stopped before the run ended')));
    });
    req.on('error', (error) => reject(error));
    req.end();
  });
}

/**
 * `run FILE` while a serve owns the workspace: the run is started through it (it checks the inputs
 * again and is the only writer of the run), followed until it ends, and printed as `run` prints a run.
 * Gates wait in the panel (or the API); the exit code is `run`'s (0 when the run completed).
 */
export async function runThroughServe(
  serve: ServeInfo,
  playbook: string,
  inputs: Record<string, unknown>,
  io: CommandIo,
  json: boolean,
  printEnd: (id: string) => number,
): Promise<number> {
  let answer;
  try {
    answer = await callServe(serve, 'POST', '/api/v1/runs', { playbook, inputs });
  } catch (error) {
    return unreachable(serve, error, io);
  }
  const refused = refusalInAnswer(answer);
  if (refused !== undefined) {
    io.stderr(`kairoku-playbook: ${forTerminal(refused)}\n`);
    return answer.status === 422 || answer.status === 400 ? 2 : 1;
  }
  const run = answer.body.run as { id: string };
  for (const warning of (answer.body.warnings as string[] | undefined) ?? [])
    io.stderr(`kairoku-playbook: warning: ${forTerminal(warning)}\n`);
  const say = json ? () => undefined : io.stdout;
  say(`run ${run.id} started on the serve of this workspace (${serve.url}); its gates wait there\n`);
  let shown = '';
  await followRun(serve, run.id, (now) => {
    const line = `${now.status}${now.waiting ? `, ${now.waiting} gate${now.waiting === 1 ? '' : 's'} waiting for a decision` : ''}`;
    if (line !== shown) say(`run ${run.id}: ${line}\n`);
    shown = line;
  });
  return printEnd(run.id);
}
