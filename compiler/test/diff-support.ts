import { Document, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode, Pair, Scalar, YAMLMap } from 'yaml';
import { compilePlaybook } from '../src/index.js';
import type { Ir } from '../src/index.js';

const FIXED = ['implementer', 'reviewer', 'planner', 'researcher'];

/** The IR of a playbook that must compile. */
export function irOf(text: string, file = 'playbook.yml'): Ir {
  const { ir, diagnostics } = compilePlaybook(file, text);
  if (!ir)
    throw new Error(
      `${file} does not compile: ${diagnostics.map((d) => `${d.code} ${d.message}`).join('; ')}`,
    );
  return ir;
}

/**
 * Renames every step, after-task, declared role, input and step output everywhere it is used, and
 * reverses the order of the keys of every mapping: an edit that changes nothing a run does.
 */
export function renameEverything(text: string): string {
  // aliases resolved (reversed keys could put an alias before its anchor)
  const doc = new Document(parseDocument(text).toJS({ maxAliasCount: -1 }), { aliasDuplicateObjects: false });
  const root = doc.contents;
  if (!isMap(root)) return text;
  const names = (key: string) => {
    const map = root.get(key);
    return isMap(map) ? map.items.map((p) => String((p.key as Scalar).value)) : [];
  };
  const stepNames = new Map(names('steps').map((n, i) => [n, `zs${i}-${n.length}`]));
  const afterNames = new Map(names('after').map((n, i) => [n, `za${i}-${n.length}`]));
  const inputNames = new Map(names('inputs').map((n, i) => [n, `zi${i}-${n.length}`]));
  const roleNames = new Map(names('roles').map((n, i) => [n, `zr${i}-${n.length}`]));
  const outputNames = new Map<string, Map<string, string>>();

  const renameKeys = (map: unknown, table: Map<string, string>) => {
    if (!isMap(map)) return;
    for (const pair of map.items) {
      const key = pair.key as Scalar;
      const renamed = table.get(String(key.value));
      if (renamed) key.value = renamed;
    }
  };
  const rewriteStep = (pair: Pair, after: boolean) => {
    const name = String((pair.key as Scalar).value);
    const step = pair.value;
    if (!isMap(step)) return;
    const outputs = step.get('outputs');
    if (!after && isMap(outputs)) {
      const table = new Map(outputs.items.map((p, i) => [String((p.key as Scalar).value), `zo${i}-x`]));
      outputNames.set(name, table);
      renameKeys(outputs, table);
    }
    const needs = step.get('needs', true) as YamlNode | undefined;
    const renameValue = (node: unknown, table: Map<string, string>) => {
      if (isScalar(node) && typeof node.value === 'string' && table.has(node.value))
        node.value = table.get(node.value)!;
    };
    if (isSeq(needs)) needs.items.forEach((n) => renameValue(n, stepNames));
    else renameValue(needs, stepNames);
    renameValue(step.get('role', true), roleNames);
  };
  const steps = root.get('steps');
  const after = root.get('after');
  if (isMap(steps)) steps.items.forEach((p) => rewriteStep(p, false));
  if (isMap(after)) after.items.forEach((p) => rewriteStep(p, true));
  // loop targets, wherever a transition stands
  const visitLoops = (node: unknown) => {
    if (isMap(node)) {
      const target = node.get('loop', true);
      if (isScalar(target) && typeof target.value === 'string' && stepNames.has(target.value))
        target.value = stepNames.get(target.value)!;
      node.items.forEach((p) => visitLoops(p.value));
    } else if (isSeq(node)) node.items.forEach(visitLoops);
  };
  visitLoops(steps);
  // roles: a fixed-table name renamed needs its base said
  const roles = root.get('roles');
  if (isMap(roles)) {
    for (const pair of roles.items) {
      const name = String((pair.key as Scalar).value);
      if (FIXED.includes(name) && isMap(pair.value) && !pair.value.has('base')) pair.value.set('base', name);
    }
  }
  // names inside expressions and templates (dotted or bracketed), before their keys are renamed
  const rewriteText = (value: string, step: string | undefined) =>
    value.replace(
      /\b(steps|inputs|report)((?:\.[a-z][a-z0-9_-]*|\[(?:'[^']*'|"[^"]*")\])+)/g,
      (whole, root: string, chain: string) => {
        const segments = [...chain.matchAll(/\.([a-z][a-z0-9_-]*)|\[(['"])(.*?)\2\]/g)].map((m) => ({
          name: m[1] ?? m[3]!,
          quote: m[2],
        }));
        const rename = (i: number, table: Map<string, string> | undefined) => {
          const segment = segments[i];
          if (segment && table?.has(segment.name)) segment.name = table.get(segment.name)!;
        };
        if (root === 'inputs') rename(0, inputNames);
        else if (root === 'steps') {
          const stepName = segments[0]?.name ?? '';
          if (segments[1]?.name === 'outputs') rename(2, outputNames.get(stepName));
          rename(0, stepNames);
        } else if (step !== undefined && segments[0]?.name === 'outputs') rename(1, outputNames.get(step));
        else return whole;
        return (
          root + segments.map((g) => (g.quote ? `[${g.quote}${g.name}${g.quote}]` : `.${g.name}`)).join('')
        );
      },
    );
  const walk = (node: unknown, step: string | undefined) => {
    if (isMap(node)) {
      for (const pair of node.items) walk(pair.value, step);
    } else if (isSeq(node)) node.items.forEach((n) => walk(n, step));
    else if (isScalar(node) && typeof node.value === 'string') node.value = rewriteText(node.value, step);
  };
  if (isMap(steps)) steps.items.forEach((p) => walk(p.value, String((p.key as Scalar).value)));
  for (const pair of root.items) if ((pair.key as Scalar).value !== 'steps') walk(pair.value, undefined);
  renameKeys(steps, stepNames);
  renameKeys(after, afterNames);
  renameKeys(root.get('inputs'), inputNames);
  renameKeys(roles, roleNames);
  const reverse = (node: unknown) => {
    if (isMap(node)) {
      node.items.forEach((p) => reverse(p.value));
      (node as YAMLMap).items.reverse();
    } else if (isSeq(node)) node.items.forEach(reverse);
  };
  reverse(root);
  return doc.toString({ lineWidth: 0 });
}
