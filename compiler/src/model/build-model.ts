import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Node, YAMLMap } from 'yaml';
import type { OffsetRange } from '../diagnostic.js';
import { keyName, rangeOf } from '../yaml/read-yaml.js';
import type {
  InputDecl,
  NameRef,
  OutcomeDecl,
  OutputDecl,
  PlaybookModel,
  RoleDecl,
  SimpleTransition,
  StepDecl,
  StepKind,
  TextRef,
  ToolsDecl,
  TransitionDecl,
} from './model.js';
import { FIXED_ROLES } from './model.js';

/**
 * Builds the model the checks work on, straight from the YAML nodes so every part keeps its range.
 * It is lenient: a part of the wrong shape was already reported by the schema check and is left out here.
 */
export function buildModel(
  file: string,
  document: Document.Parsed,
  plainValue?: unknown,
  aliases?: ReadonlyMap<Alias, Node | undefined>,
): PlaybookModel {
  currentAliases = aliases;
  try {
    return build(file, document, plainValue);
  } finally {
    currentAliases = undefined;
  }
}

/**
 * What the aliases of the document being built name: `b: *common` reads as the anchored mapping (its
 * diagnostics point at the anchor's text). Set for the duration of one synchronous `buildModel`.
 */
let currentAliases: ReadonlyMap<Alias, Node | undefined> | undefined;

function deref(node: unknown): unknown {
  return isAlias(node) ? (currentAliases?.get(node) ?? null) : node;
}

/** A key and its value, the value's alias resolved. */
interface Entry {
  key: unknown;
  value: unknown;
  /** the value as written, an alias itself (for ranges at the place of use) */
  raw: unknown;
}

function build(file: string, document: Document.Parsed, plainValue: unknown): PlaybookModel {
  const root = document.contents;
  const top = entries(root as Node);
  const model: PlaybookModel = {
    file,
    id: idFromFileName(file),
    idRange: undefined,
    version: undefined,
    title: text(top.get('title')?.value),
    description: plainString(top.get('description')?.value),
    workspace: 'current',
    labels: [],
    inputs: [],
    roles: new Map(),
    limits: { concurrency: 1, timeout: undefined, stepTimeout: undefined, maxLoops: 3 },
    steps: [],
    stepByName: new Map(),
    after: [],
    outputs: [],
  };
  const id = top.get('id');
  if (id && isScalar(id.value) && typeof id.value.value === 'string') {
    model.id = id.value.value;
    model.idRange = rangeOf(id.value);
  }
  const version = top.get('version')?.value;
  if (isScalar(version) && typeof version.value === 'number') model.version = version.value;
  const workspace = plainString(top.get('workspace')?.value);
  if (workspace === 'new-agent' || workspace === 'new-worktree') model.workspace = workspace;
  model.labels = labelsOf(top.get('labels')?.value);

  const plainInputs = member(plainValue, 'inputs');
  for (const [name, pair] of entries(top.get('inputs')?.value))
    model.inputs.push(buildInput(name, pair, member(plainInputs, name)));
  for (const base of FIXED_ROLES) {
    model.roles.set(base, {
      name: base,
      keyRange: undefined,
      base: undefined,
      keys: [],
      isMapping: true,
      instructions: undefined,
      provider: undefined,
      model: undefined,
      mode: undefined,
      tools: undefined,
    });
  }
  for (const [name, pair] of entries(top.get('roles')?.value)) model.roles.set(name, buildRole(name, pair));

  const limits = entries(top.get('limits')?.value);
  const concurrency = numberOf(limits.get('concurrency')?.value);
  if (concurrency !== undefined) model.limits.concurrency = concurrency;
  const maxLoops = numberOf(limits.get('max_loops')?.value);
  if (maxLoops !== undefined) model.limits.maxLoops = maxLoops;
  model.limits.timeout = text(limits.get('timeout')?.value);
  model.limits.stepTimeout = text(limits.get('step_timeout')?.value);

  let index = 0;
  for (const [name, pair] of entries(top.get('steps')?.value)) {
    const step = buildStep(name, pair, index++, false);
    model.steps.push(step);
    model.stepByName.set(name, step);
  }
  index = 0;
  for (const [name, pair] of entries(top.get('after')?.value))
    model.after.push(buildStep(name, pair, index++, true));
  for (const [name, pair] of entries(top.get('outputs')?.value)) {
    const value = pair.value as Node | null;
    model.outputs.push({
      name,
      keyRange: rangeOf(pair.key as Node),
      text: text(value),
      literal: isScalar(value) && typeof value.value !== 'string' ? value.value : undefined,
    });
  }
  return model;
}

function idFromFileName(file: string): string {
  const base = file.replace(/\\/g, '/').split('/').pop() ?? file;
  return base.replace(/\.(ya?ml)$/i, '').replace(/\.playbook$/i, '');
}

/** An own property of a plain value (the names come from the file: `__proto__` is just a name). */
function member(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The entries of a mapping by key (the first of duplicate keys wins, as in the plain value). */
function entries(node: unknown): Map<string, Entry> {
  const result = new Map<string, Entry>();
  node = deref(node);
  if (!isMap(node)) return result;
  for (const pair of (node as YAMLMap<unknown, unknown>).items) {
    const key = keyName(pair.key);
    // (a key that is a list, a mapping or an alias stands for its text as written, as in the plain value)
    if (key !== undefined && !result.has(key))
      result.set(key, { key: pair.key, value: deref(pair.value), raw: pair.value });
  }
  return result;
}

function text(node: unknown): TextRef | undefined {
  node = deref(node);
  return isScalar(node) && typeof node.value === 'string' ? { value: node.value, node } : undefined;
}

function plainString(node: unknown): string | undefined {
  node = deref(node);
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

function numberOf(node: unknown): number | undefined {
  node = deref(node);
  return isScalar(node) && typeof node.value === 'number' ? node.value : undefined;
}

function booleanOf(node: unknown): { value: boolean; range: OffsetRange } | undefined {
  node = deref(node);
  return isScalar(node) && typeof node.value === 'boolean'
    ? { value: node.value, range: rangeOf(node) }
    : undefined;
}

function nameRef(node: unknown): NameRef | undefined {
  node = deref(node);
  return isScalar(node) && typeof node.value === 'string'
    ? { name: node.value, range: rangeOf(node) }
    : undefined;
}

/**
 * The text of a number or boolean where text is expected (a label, an env value): a number as written,
 * since its value may not be (9007199254740993 reads as …992, 1.10 as 1.1).
 */
function literalText(node: unknown): string | undefined {
  if (!isScalar(node) || typeof node.value === 'string') return undefined;
  return typeof node.value === 'number' && node.source ? node.source : String(node.value);
}

function labelsOf(node: unknown): StepDecl['labels'] {
  return [...entries(node as Node)].map(([name, pair]) => ({
    name,
    text: text(pair.value),
    literal: literalText(pair.value),
  }));
}

function buildInput(name: string, pair: Entry, plainInput: unknown): InputDecl {
  const fields = entries(pair.value as Node);
  const defaultPair = fields.get('default');
  const required = booleanOf(fields.get('required')?.value);
  return {
    name,
    keyRange: rangeOf(pair.key as Node),
    typeText: text(fields.get('type')?.value),
    type: undefined,
    defaultValue: defaultPair
      ? // the value as the schema check saw it: aliases expanded within the limits, no cycles
        { value: member(plainInput, 'default') ?? null, node: defaultPair.raw as Node }
      : undefined,
    required: required ? required.value : !defaultPair,
    secret: booleanOf(fields.get('secret')?.value)?.value ?? false,
    multiline: booleanOf(fields.get('multiline')?.value)?.value ?? false,
    description: plainString(fields.get('description')?.value),
    pattern: text(fields.get('pattern')?.value),
    min: numberOf(fields.get('min')?.value),
    max: numberOf(fields.get('max')?.value),
    fieldKeys: new Map([...fields].map(([key, entry]) => [key, rangeOf(entry.key as Node)])),
  };
}

function buildRole(name: string, pair: Entry): RoleDecl {
  const fields = entries(pair.value as Node);
  let tools: ToolsDecl | undefined;
  const toolsPair = fields.get('tools');
  if (toolsPair && isMap(toolsPair.value)) {
    tools = {};
    for (const [tool, toolPair] of entries(toolsPair.value as Node)) {
      const value = toolPair.value as Node | null;
      const range = rangeOf(toolPair.key as Node);
      if (tool === 'read' || tool === 'edit' || tool === 'write' || tool === 'network') {
        const flag = booleanOf(value);
        if (flag) tools[tool] = { value: flag.value, range };
      } else if (tool === 'run' || tool === 'mcp') {
        const flag = booleanOf(value);
        if (flag) tools[tool] = { value: flag.value, range };
        else if (isSeq(value)) {
          tools[tool] = { value: value.items.map(text).filter((t): t is TextRef => t !== undefined), range };
        }
      }
    }
  }
  return {
    name,
    keyRange: rangeOf(pair.key as Node),
    base: nameRef(fields.get('base')?.value),
    keys: [...fields].map(([key, keyPair]) => ({ name: key, range: rangeOf(keyPair.key as Node) })),
    isMapping: isMap(pair.value),
    instructions: text(fields.get('instructions')?.value),
    provider: plainString(fields.get('provider')?.value),
    model: plainString(fields.get('model')?.value),
    mode: plainString(fields.get('mode')?.value),
    tools,
  };
}

const SIMPLE: readonly string[] = ['next', 'fail', 'end', 'retry'];

function buildTransition(node: Node | null | undefined): TransitionDecl | undefined {
  node = deref(node) as Node | null | undefined;
  if (isScalar(node)) {
    return typeof node.value === 'string' && SIMPLE.includes(node.value)
      ? { kind: node.value as SimpleTransition, range: rangeOf(node) }
      : undefined;
  }
  if (!isMap(node)) return undefined;
  const fields = entries(node);
  if (!fields.has('loop')) return undefined;
  const max = fields.get('max')?.value;
  const exhausted = fields.get('exhausted')?.value;
  const exhaustedKind = plainString(exhausted);
  return {
    kind: 'loop',
    range: rangeOf(node),
    target: nameRef(fields.get('loop')?.value),
    max:
      isScalar(max) && typeof max.value === 'number' ? { value: max.value, range: rangeOf(max) } : undefined,
    feedback: text(fields.get('feedback')?.value),
    exhausted:
      exhaustedKind === 'next' || exhaustedKind === 'fail' || exhaustedKind === 'end'
        ? { kind: exhaustedKind, range: rangeOf(exhausted as Node) }
        : undefined,
  };
}

function buildChoice(name: string, pair: Entry): OutcomeDecl {
  const value = pair.value as Node | null;
  const keyRange = rangeOf(pair.key as Node);
  if (isMap(value) && !entries(value).has('loop')) {
    const fields = entries(value);
    const comment = plainString(fields.get('comment')?.value);
    return {
      name,
      keyRange,
      transition: buildTransition(fields.get('then')?.value as Node | null),
      label: plainString(fields.get('label')?.value),
      comment: comment === 'optional' || comment === 'required' ? comment : 'none',
    };
  }
  return { name, keyRange, transition: buildTransition(value), label: undefined, comment: 'none' };
}

function implicitOutcome(name: string, kind: SimpleTransition): OutcomeDecl {
  return {
    name,
    keyRange: undefined,
    transition: { kind, range: { start: 0, end: 0 } },
    label: undefined,
    comment: 'none',
  };
}

const DEFAULT_OUTCOMES: Record<StepKind, readonly [string, SimpleTransition][]> = {
  agent: [
    ['done', 'next'],
    ['failed', 'fail'],
  ],
  check: [
    ['pass', 'next'],
    ['fail', 'fail'],
  ],
  gate: [
    ['approve', 'next'],
    ['reject', 'fail'],
  ],
};

function buildStep(name: string, pair: Entry, index: number, isAfter: boolean): StepDecl {
  const fields = entries(pair.value as Node);
  const { kind, kindKeys } = kindOf(fields, isAfter);
  const whenNode = fields.get('when')?.value;
  const when = text(whenNode) ?? booleanOf(whenNode);
  const { gate, outcomes, outcomesDeclared } = outcomesOf(fields, kind);
  const needs = nameRefs(fields.get('needs')?.value as Node | null | undefined);
  const run = textRefs(fields.get('run')?.value as Node | null | undefined);
  const outputs = outputsOf(fields.get('outputs')?.value as Node);
  const env: StepDecl['env'] = [...entries(fields.get('env')?.value as Node)].map(([envName, envPair]) => ({
    name: envName,
    keyRange: rangeOf(envPair.key as Node),
    text: text(envPair.value),
    literal: literalText(envPair.value),
  }));

  const retries = numberOf(fields.get('retries')?.value);
  const trigger = plainString(fields.get('trigger')?.value);
  const onNode = fields.get('on')?.value;
  const onValues = isSeq(onNode) ? onNode.items.map(plainString) : [plainString(onNode)];
  const on = onNode
    ? onValues.filter((v): v is 'completed' | 'failed' => v === 'completed' || v === 'failed')
    : [];

  return {
    name,
    keyRange: rangeOf(pair.key as Node),
    index,
    isAfter,
    kind,
    kindKeys,
    isMapping: isMap(pair.value),
    keys: [...fields].map(([key, keyPair]) => ({ name: key, range: rangeOf(keyPair.key as Node) })),
    title: text(fields.get('title')?.value),
    needs,
    when,
    role: nameRef(fields.get('role')?.value),
    provider: plainString(fields.get('provider')?.value),
    model: plainString(fields.get('model')?.value),
    prompt: text(fields.get('prompt')?.value),
    run,
    env,
    cwd: text(fields.get('cwd')?.value),
    outputs,
    outcomes,
    outcomesDeclared,
    gate,
    timeout: text(fields.get('timeout')?.value),
    retries:
      retries !== undefined && Number.isInteger(retries) && retries >= 0 && retries <= 10 ? retries : 0,
    labels: labelsOf(fields.get('labels')?.value),
    trigger: trigger === 'manual' ? 'manual' : 'auto',
    on: onNode ? on : ['completed', 'failed'],
    onValue: nameRef(onNode),
  };
}

type Fields = ReturnType<typeof entries>;

/** The step's kind by the key that makes it (`prompt`, `run`, `gate`): none when it has none or several. */
function kindOf(fields: Fields, isAfter: boolean): { kind: StepKind | undefined; kindKeys: NameRef[] } {
  const kindKeys: NameRef[] = [];
  const kinds: StepKind[] = [];
  for (const [key, stepKind] of [
    ['prompt', 'agent'],
    ['run', 'check'],
    ['gate', 'gate'],
  ] as const) {
    const keyPair = fields.get(key);
    if (!keyPair || (isAfter && key === 'gate')) continue;
    kinds.push(stepKind);
    kindKeys.push({ name: key, range: rangeOf(keyPair.key as Node) });
  }
  return { kind: kinds.length === 1 ? kinds[0] : undefined, kindKeys };
}

/** `needs: x` or `needs: [x, y]`. */
function nameRefs(node: Node | null | undefined): NameRef[] {
  const refs: NameRef[] = [];
  if (isScalar(node)) {
    const ref = nameRef(node);
    if (ref) refs.push(ref);
  } else if (isSeq(node)) {
    for (const item of node.items) {
      const ref = nameRef(item);
      if (ref) refs.push(ref);
    }
  }
  return refs;
}

/** `run: CMD` or `run: [CMD, …]`. */
function textRefs(node: Node | null | undefined): TextRef[] {
  const refs: TextRef[] = [];
  if (isSeq(node))
    for (const item of node.items) {
      const t = text(item);
      if (t) refs.push(t);
    }
  else {
    const t = text(node);
    if (t) refs.push(t);
  }
  return refs;
}

/** `outputs:`, each a type or `{type, description}`. */
function outputsOf(node: Node): OutputDecl[] {
  const outputs: OutputDecl[] = [];
  for (const [outputName, outputPair] of entries(node)) {
    const value = outputPair.value as Node | null;
    const detail = isMap(value) ? entries(value) : undefined;
    outputs.push({
      name: outputName,
      keyRange: rangeOf(outputPair.key as Node),
      typeText: detail ? text(detail.get('type')?.value) : text(value),
      type: undefined,
      description: detail ? plainString(detail.get('description')?.value) : undefined,
    });
  }
  return outputs;
}

/** A gate's `gate:` and choices, or a step's `outcomes:`; the kind's defaults fill in what is not declared. */
function outcomesOf(
  fields: Fields,
  kind: StepKind | undefined,
): { gate: StepDecl['gate']; outcomes: OutcomeDecl[]; outcomesDeclared: boolean } {
  let gate: StepDecl['gate'];
  const outcomes: OutcomeDecl[] = [];
  let outcomesDeclared = false;
  const gatePair = fields.get('gate');
  if (kind === 'gate' && gatePair) {
    const gateFields = entries(gatePair.value as Node);
    gate = {
      title: text(gateFields.get('title')?.value),
      summary: text(gateFields.get('summary')?.value),
      range: rangeOf(gatePair.key as Node),
    };
    const choices = gateFields.get('choices');
    if (choices && isMap(choices.value)) {
      outcomesDeclared = true;
      for (const [choiceName, choicePair] of entries(choices.value as Node))
        outcomes.push(buildChoice(choiceName, choicePair));
    }
  } else {
    const declared = fields.get('outcomes');
    if (declared && isMap(declared.value)) {
      outcomesDeclared = true;
      for (const [outcomeName, outcomePair] of entries(declared.value as Node)) {
        outcomes.push({
          name: outcomeName,
          keyRange: rangeOf(outcomePair.key as Node),
          transition: buildTransition(outcomePair.value as Node | null),
          label: undefined,
          comment: 'none',
        });
      }
    }
  }
  // Defaults fill in: all of them when nothing is declared, and a check step's missing pass/fail.
  if (kind && (!outcomesDeclared || kind === 'check')) {
    for (const [outcomeName, transition] of DEFAULT_OUTCOMES[kind]) {
      if (!outcomes.some((o) => o.name === outcomeName))
        outcomes.push(implicitOutcome(outcomeName, transition));
    }
  }
  return { gate, outcomes, outcomesDeclared };
}
