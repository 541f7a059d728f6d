/**
 * Why the host did not do what was asked. `code` is stable (kebab-case): the transition function's
 * codes (`not-waiting`, `comment-required`, ...) and the host's own (`unknown-run`, `invalid-input`,
 * `workspace-busy`, `concurrency-limit`, ...). `kind` says what sort of refusal it is, so an edge can
 * map it (HTTP: 404, 422, 409) without reading the code.
 */
export interface HostRefusal {
  code: string;
  message: string;
  kind: 'not-found' | 'invalid' | 'conflict';
  /** a JSON pointer into what was asked (`/inputs/repo`) */
  field?: string;
}

export type HostResult<T> = { ok: true; value: T } | { ok: false; refusal: HostRefusal };

export function refusedValue(
  code: string,
  message: string,
  kind: HostRefusal['kind'],
  field?: string,
): HostRefusal {
  return { code, message, kind, ...(field !== undefined ? { field } : {}) };
}

export function refused<T>(
  code: string,
  message: string,
  kind: HostRefusal['kind'],
  field?: string,
): HostResult<T> {
  return { ok: false, refusal: refusedValue(code, message, kind, field) };
}

/**
 * A refusal of the transition function: a step or after-task it does not know is not found (404, as for
 * an unknown run); every other code says "not now" (409).
 */
export function fromTransition<T>(refusal: { code: string; message: string }): HostResult<T> {
  const notFound = refusal.code === 'unknown-step' || refusal.code === 'unknown-after-task';
  return refused(refusal.code, refusal.message, notFound ? 'not-found' : 'conflict');
}
