/**
 * Completion in the workspace's `.kairoku/policy.yml` (SPEC §4 PB700): its keys with their descriptions,
 * `true`/`false` for `strict`, and command patterns often gated for `gated` (the defaults already are).
 */
import { DEFAULT_GATED } from '@kairoku-playbook/compiler';
import type { YamlCursor } from '../language/yaml-cursor.js';
import type { OffsetRange } from '../language/types.js';

/** A completion entry, as completion.ts's `CompletionEntry` (which imports this file) takes it. */
interface PolicyEntry {
  label: string;
  kind: 'key' | 'value';
  detail?: string;
  documentation?: string;
  insertText: string;
  range: OffsetRange;
  sortText?: string;
}

const KEYS: { name: string; insert: string; documentation: string }[] = [
  {
    name: 'strict',
    insert: 'strict: ',
    documentation:
      'When true, a role that may run any command (`run: true`, or a base that runs and no `run` list) reaches outside too: its agent steps need a gate approved before them. Default false.',
  },
  {
    name: 'gated',
    insert: 'gated:',
    documentation: `Command patterns that reach outside, in addition to the defaults: ${DEFAULT_GATED.map((p) => `\`${p}\``).join(', ')}. \`*\` matches any run of characters.`,
  },
];

/** Patterns other workspaces gate: deploys and pushes the defaults do not name. */
const OFTEN_GATED = [
  'docker push*',
  'aws *',
  'gcloud *',
  'az *',
  'flyctl deploy*',
  'vercel deploy*',
  'npx wrangler deploy*',
  'cargo publish*',
  'twine upload*',
  'gh repo delete*',
];

export function policyCompletions(cursor: YamlCursor): PolicyEntry[] {
  const range = { start: cursor.word.start, end: cursor.word.end };
  // (a listed item as written: quotes around it do not make it another pattern)
  const present = new Set(cursor.siblings.map((item) => item.replace(/^(['"])(.*)\1$/, '$2')));
  if (cursor.position === 'key' && cursor.path.length === 0)
    return KEYS.filter((key) => !present.has(key.name) || key.name === cursor.word.prefix).map((key, n) => ({
      label: key.name,
      kind: 'key',
      insertText: cursor.colonAfter ? key.name : cursor.flow ? `${key.name}: ` : key.insert,
      documentation: key.documentation,
      range,
      sortText: String(n).padStart(3, '0'),
    }));
  if (cursor.position !== 'value') return [];
  if (cursor.path.length === 1 && cursor.path[0] === 'strict')
    return ['true', 'false'].map((value, n) => ({
      label: value,
      kind: 'value',
      insertText: value,
      range,
      sortText: String(n).padStart(3, '0'),
    }));
  if (cursor.path.length === 1 && cursor.path[0] === 'gated' && cursor.inSequence)
    return OFTEN_GATED.filter((pattern) => !present.has(pattern)).map((pattern, n) => ({
      label: pattern,
      kind: 'value',
      detail: 'gated pattern',
      // (a pattern with `*` or a space is quoted, as YAML reads `*` first as an alias)
      insertText: `'${pattern}'`,
      range,
      sortText: String(n).padStart(3, '0'),
    }));
  return [];
}
