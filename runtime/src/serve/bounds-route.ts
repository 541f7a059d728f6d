/** `GET /api/v1/bounds?playbook=ID`: the worst case of a run of a playbook of the workspace (bounds-cache.ts). */
import { refuse } from './answers.js';
import type { RouteCall } from './routes.js';

export async function playbookBounds({ res, url, serve }: RouteCall): Promise<void> {
  const playbook = url.searchParams.get('playbook');
  if (!playbook) return refuse(res, 422, 'invalid-query', 'name the playbook: ?playbook=ID');
  const found = serve.workspace.snapshot().playbooks.find((p) => p.file === playbook);
  if (!found)
    return refuse(res, 404, 'unknown-playbook', `there is no playbook "${playbook}" in this workspace`);
  if (!found.ir)
    return serve.answer(res, 200, 'bounds', { playbook, why: 'the playbook has errors: it has no bound' });
  try {
    const bounds = await serve.bounds.of(found.file, found.ir);
    serve.answer(
      res,
      200,
      'bounds',
      bounds ? { playbook, bounds } : { playbook, why: 'a run of this playbook has no finite bound' },
    );
  } catch (error) {
    refuse(res, 500, 'bounds-failed', `the bound could not be worked out: ${(error as Error).message}`);
  }
}
