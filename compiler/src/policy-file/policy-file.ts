import type { ErrorObject } from 'ajv';
import { isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import { commandPatternProblem } from '../checks/command-patterns.js';
import { createDiagnostic, replaceFix, shown, shownValue } from '../diagnostic.js';
import type { Diagnostic, OffsetRange } from '../diagnostic.js';
import { validate as validateAgainstPolicySchema } from '../generated/policy-validator.js';
import { SourceText } from '../source-text.js';
import { applySuppressions } from '../suppressions.js';
import { nodeAtPointer, pairAtPointer, rangeOf, readYaml, requiredRange } from '../yaml/read-yaml.js';

/**
 * The workspace's approval policy, `.kairoku/policy.yml` (SPEC §4 PB700): which commands reach outside a
 * worktree, and whether a role that may run anything counts. Its text reaches the compiler as any other
 * workspace file does (`validateWorkspace`); the edges (CLI, language server, MCP) read it.
 */
export interface ApprovalPolicy {
  /** a role with `run: true` (or a running base and no `run` list) reaches outside */
  strict: boolean;
  /** the gated command patterns: the defaults, then the file's `gated:` */
  gated: readonly GatedPattern[];
}

export interface GatedPattern {
  pattern: string;
  /** where it was written: the policy file, or undefined for a default */
  file: string | undefined;
}

/** SPEC §4: the commands that reach outside without a policy file saying more. */
export const DEFAULT_GATED: readonly string[] = [
  'git push*',
  'npm publish*',
  'gh pr merge*',
  'gh release*',
  'kubectl *',
  'terraform apply*',
  'helm *',
];

export const DEFAULT_POLICY: ApprovalPolicy = {
  strict: false,
  gated: DEFAULT_GATED.map((pattern) => ({ pattern, file: undefined })),
};

/** Whether a workspace path is the workspace's policy file (`.kairoku/policy.yml` or `.yaml`). */
export function isPolicyFile(path: string): boolean {
  return /(^|[\\/])\.kairoku[\\/]policy\.ya?ml$/.test(path);
}

/** Two policies that give every playbook the same PB700: a cached analysis may be reused across them. */
export function samePolicy(a: ApprovalPolicy, b: ApprovalPolicy): boolean {
  return (
    a === b ||
    (a.strict === b.strict &&
      a.gated.length === b.gated.length &&
      a.gated.every((g, i) => g.pattern === b.gated[i]!.pattern && g.file === b.gated[i]!.file))
  );
}

export interface PolicyAnalysis {
  file: string;
  text: string;
  source: SourceText;
  diagnostics: Diagnostic[];
  /** what the file says, as far as it says it well: a mistaken entry is left out, the rest applies */
  policy: ApprovalPolicy;
}

interface StandaloneValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'text',
  boolean: 'true or false',
};

/**
 * Reads `.kairoku/policy.yml`: PB100/PB101 for its YAML, PB701 where it does not fit its schema
 * (grammar/schema/policy.schema.json), PB702 for a gated pattern that is not a command pattern. Pure.
 */
export function analyzePolicyFile(file: string, text: string): PolicyAnalysis {
  const source = new SourceText(text);
  const yaml = readYaml(file, text);
  const diagnostics: Diagnostic[] = [...yaml.diagnostics];
  const gated = [...DEFAULT_POLICY.gated];
  let strict = false;
  const document = yaml.document;
  const value = yaml.value;
  const empty = value === null || value === undefined;
  if (document && !empty && !diagnostics.some((d) => d.severity === 'error')) {
    const validate = validateAgainstPolicySchema as StandaloneValidator;
    const wrong = new Set<string>();
    if (!validate(value)) {
      for (const error of validate.errors ?? []) {
        const diagnostic = schemaDiagnostic(file, document, error);
        if (diagnostic) diagnostics.push(diagnostic);
        wrong.add(error.instancePath.split('/').slice(0, 2).join('/'));
      }
    }
    const record = (typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<
      string,
      unknown
    >;
    if (typeof record.strict === 'boolean') strict = record.strict;
    const list = nodeAtPointer(document, '/gated');
    if (!wrong.has('/gated') && isSeq(list)) {
      for (const item of list.items) {
        if (!isScalar(item) || typeof item.value !== 'string') continue;
        const pattern = item.value;
        const problem = commandPatternProblem(pattern);
        if (problem) {
          diagnostics.push(
            createDiagnostic(
              file,
              'PB702',
              rangeOf(item as Node),
              `invalid gated pattern "${shown(pattern)}": ${problem.message}`,
            ),
          );
          continue;
        }
        gated.push({ pattern: pattern.trim(), file });
      }
    }
  }
  return {
    file,
    text,
    source,
    diagnostics: applySuppressions(file, text, diagnostics, source),
    policy: { strict, gated },
  };
}

function schemaDiagnostic(
  file: string,
  document: NonNullable<ReturnType<typeof readYaml>['document']>,
  error: ErrorObject,
): Diagnostic | undefined {
  const path = error.instancePath;
  const where = path ? `"${path.slice(1).replace(/\//g, '.')}"` : 'the policy file';
  if (error.keyword === 'additionalProperties') {
    const key = String((error.params as { additionalProperty: string }).additionalProperty);
    const pair = pairAtPointer(document, path, key);
    const allowed = ['strict', 'gated'];
    const suggestion = closest(key, allowed);
    const range = rangeOf(pair?.key as Node);
    return createDiagnostic(
      file,
      'PB701',
      range,
      `unknown key "${shown(key)}" in the policy file; ${suggestion ? `did you mean "${suggestion}"?` : `expected ${allowed.join(' or ')}`}`,
      { fix: isScalar(pair?.key) ? replaceFix(range, suggestion) : undefined },
    );
  }
  if (error.keyword !== 'type') return undefined;
  const node = nodeAtPointer(document, path);
  const valueRange: OffsetRange = rangeOf(node);
  const range = valueRange.end > valueRange.start ? valueRange : requiredRange(document, path);
  const written = shownValue(node && isScalar(node) ? node.value : (node?.toJSON() as unknown));
  const type = (error.params as { type: string }).type;
  return createDiagnostic(
    file,
    'PB701',
    range,
    `${where} must be ${TYPE_WORDS[type] ?? type}, not ${written}`,
  );
}
