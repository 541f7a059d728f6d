/**
 * The page's copy of serve's API types (src/api/api-types.ts; the page imports nothing of the playbook
 * packages) agrees with the host's (runtime/src/serve/api-types.ts), checked by the TypeScript
 * compiler on the two sources: every answer serve sends is readable as the page's type, and every
 * request the page sends is one serve accepts.
 */
import { describe, expect, it } from 'vitest';
import { typeErrors } from '../../test/support/type-errors.js';

const IMPORTS = `
  import type * as Serve from '../../runtime/src/serve/api-types.js';
  import type * as Page from '../src/api/api-types.js';
`;

/** serve's answer → the page's type of it */
const ANSWERS = [
  ['RefusalBody', 'RefusalBody'],
  ['PlaybookCard', 'PlaybookCard'],
  ['RunListItem', 'RunListItem'],
  ['RunDetail', 'RunDetail'],
  ['StartAnswer', 'StartAnswer'],
  ['RunEventData', 'RunEvent'],
] as const;

/** the page's request → serve's type of it */
const REQUESTS = [['StartRequest', 'StartRequest']] as const;

describe("the panel's copy of serve's API types", () => {
  it('reads every answer serve sends, and sends only requests serve accepts', () => {
    const errors = typeErrors('panel/test', {
      agreement: `${IMPORTS}
        ${ANSWERS.map(([serve, page]) => `export const answer${serve} = (a: Serve.${serve}): Page.${page} => a;`).join('\n')}
        ${REQUESTS.map(([page, serve]) => `export const request${page} = (r: Page.${page}): Serve.${serve} => r;`).join('\n')}`,
      // The check sees a difference: a run status the page would not know.
      difference: `${IMPORTS}
        type More = Omit<Serve.RunListItem, 'status'> & { status: Serve.RunListItem['status'] | 'exploded' };
        export const answer = (a: More): Page.RunListItem => a;`,
    });
    expect(errors.agreement).toEqual([]);
    expect(errors.difference).not.toEqual([]);
  }, 60_000);
});
