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
