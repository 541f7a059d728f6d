import type { Ir, IrAfterTask, IrExpr, IrRole, IrStep, IrTemplate, IrTransition } from '../ir/ir.js';

/**
 * Which step, after-task, role and input of one version of a playbook is which of the other: matched
 * by what they are, not by their names, so that renaming (everywhere it is used) and reordering keys
 * change nothing. The rule (docs/cli.md, "How steps are matched"):
 *
 * 1. Every node is labelled with its content with every name taken out (a reference to a step, an
 *    output, an input or a role stands for that node; maps are compared as sets, so key order does not
 *    count), and the labels are refined over the graph (needs, dependents, loop targets, references,
 *    roles, users) until no class splits any more (colour refinement, as in the Weisfeiler–Leman test).
 * 2. Nodes of the same final class are matched: a rename-only edit matches every node. Within a
 *    class, nodes of the same name go together first, then in order (they are indistinguishable).
 * 3. What is left is matched by the largest neighbourhood that still looks the same: a class that
 *    holds exactly one node of each version at an earlier round of the refinement, from the last
 *    round down to the first (the node's own content, names taken out).
 * 4. Then by name (a step only with a step of the same kind).
 * 5. Then by place: an unmatched node of each version, of the same kind, whose needs (or, for a role
 *    or an input, whose users; for a step that needs nothing, the steps that need it) are the same
 *    matched nodes, when that pairing is unique. Repeated until
 *    nothing moves. Roles go by place before they go by name.
 * 6. Whatever is left was added or removed.
 */
export interface Matching {
  /** base step index → head step index */
  steps: Map<number, number>;
  /** base after-task index (in `after`) → head after-task index */
  after: Map<number, number>;
  /** base role name → head role name */
  roles: Map<string, string>;
  /** base input name → head input name */
  inputs: Map<string, string>;
  /** `BASE_STEP\0BASE_OUTPUT` → the head output's name, for the outputs of matched steps */
  outputs: Map<string, string>;
}

type NodeType = 'step' | 'after' | 'role' | 'input' | 'output';

interface Node {
  type: NodeType;
  name: string;
  /** a step's kind, for steps and after-tasks */
  kind: string;
  /**
   * the label of this node's own content, with each node it points at written by `color`; written
   * once (with placeholders), then filled in with each round's colours
   */
  label: (color: (ref: Node | undefined) => string) => string;
  /** the sets of nodes it is linked to whose order does not count (needs, dependents, users …) */
  sets: () => Node[][];
  /** the node's needs (steps) or users (roles, inputs): for matching by place */
  anchors: Node[];
  /** a step's dependents: its place when it needs nothing (a first step) */
  followers?: Node[];
}

/** The nodes of one version, with the lookups their labels use. */
class Graph {
  readonly steps: Node[] = [];
  readonly after: Node[] = [];
  readonly roles = new Map<string, Node>();
  readonly inputs = new Map<string, Node>();
  /** step name → output name → node */
  readonly outputs = new Map<string, Map<string, Node>>();
  /** after-task name → output name → node (nothing reads them) */
  readonly afterOutputs = new Map<string, Map<string, Node>>();
  readonly all: Node[] = [];
  private readonly stepByName: Map<string, IrStep>;

  constructor(readonly ir: Ir) {
    const stepByName = new Map(ir.steps.map((s) => [s.name, s]));
    this.stepByName = stepByName;
    for (const input of ir.inputs) {
      const stat = JSON.stringify([
        input.type,
        input.description,
        input.required,
        input.secret,
        input.multiline,
        input.default ?? null,
      ]);
      this.add(this.inputs, input.name, {
        type: 'input',
        name: input.name,
        kind: '',
        label: () => stat,
        sets: () => [this.usersOf(input.name, 'input')],
        anchors: [],
      });
    }
    for (const role of ir.roles) {
      const stat = roleContent(role);
      this.add(this.roles, role.name, {
        type: 'role',
        name: role.name,
        kind: '',
        label: () => stat,
        sets: () => [this.usersOf(role.name, 'role')],
        anchors: [],
      });
    }
    for (const step of ir.steps) {
      const node = this.stepNode(step, 'step');
      this.steps.push(node);
      this.all.push(node);
    }
    for (const task of ir.after) {
      const node = this.stepNode(task, 'after');
      this.after.push(node);
      this.all.push(node);
    }
    const owners: [IrStep | IrAfterTask, Node, Map<string, Map<string, Node>>][] = [
      ...ir.steps.map((s): [IrStep, Node, Map<string, Map<string, Node>>] => [
        s,
        this.steps[s.index]!,
        this.outputs,
      ]),
      ...ir.after.map((t, i): [IrAfterTask, Node, Map<string, Map<string, Node>>] => [
        t,
        this.after[i]!,
        this.afterOutputs,
      ]),
    ];
    for (const [step, owner, table] of owners) {
      const outputs = new Map<string, Node>();
      const readable = table === this.outputs;
      for (const output of step.outputs) {
        const stat = JSON.stringify([output.type, output.description]);
        const node: Node = {
          type: 'output',
          name: output.name,
          kind: '',
          label: (c) => `${stat}|${c(owner)}`,
          sets: () => (readable ? [this.readersOf(step.name, output.name)] : []),
          anchors: [],
        };
        outputs.set(output.name, node);
        this.all.push(node);
      }
      table.set(step.name, outputs);
    }
    for (const step of ir.steps) {
      const node = this.steps[step.index]!;
      node.anchors = step.needs.map((n) => this.steps[n]!);
      node.followers = this.dependentsOf(step.index);
    }
    for (const [name, role] of this.roles) role.anchors = this.usersOf(name, 'role');
    for (const [name, input] of this.inputs) input.anchors = this.usersOf(name, 'input');
  }

  private add(map: Map<string, Node>, name: string, node: Node): void {
    map.set(name, node);
    this.all.push(node);
  }

  private users: { role: Map<string, Node[]>; input: Map<string, Node[]> } | undefined;
  private readers: Map<string, Node[]> | undefined;

  /** The steps and after-tasks that run in a role, or read an input. */
  usersOf(name: string, what: 'role' | 'input'): Node[] {
    this.indexUses();
    return this.users![what].get(name) ?? [];
  }

  /** The steps and after-tasks whose templates read `steps.STEP.outputs.OUTPUT`. */
  private readersOf(step: string, output: string): Node[] {
    this.indexUses();
    return this.readers!.get(`${step}\0${output}`) ?? [];
  }

  private indexUses(): void {
    if (this.users) return;
    this.users = { role: new Map(), input: new Map() };
    this.readers = new Map();
    const push = (map: Map<string, Node[]>, key: string, node: Node) => {
      const list = map.get(key);
      if (list) list.push(node);
      else map.set(key, [node]);
    };
    const tasks: [IrStep | IrAfterTask, Node][] = [
      ...this.ir.steps.map((s): [IrStep, Node] => [s, this.steps[s.index]!]),
      ...this.ir.after.map((t, i): [IrAfterTask, Node] => [t, this.after[i]!]),
    ];
    for (const [step, node] of tasks) {
      if (step.role) push(this.users.role, step.role, node);
      for (const input of step.inputs) {
        const output = /^steps\.([^.]+)\.outputs\.([^.]+)$/.exec(input.from);
        if (input.from.startsWith('inputs.'))
          push(this.users.input, input.from.slice('inputs.'.length), node);
        else if (output) push(this.readers, `${output[1]}\0${output[2]}`, node);
      }
    }
  }

  private stepNode(step: IrStep | IrAfterTask, type: 'step' | 'after'): Node {
    const node: Node = {
      type,
      name: step.name,
      kind: step.kind,
      label: (c) => this.stepLabel(step, c),
      sets: () => {
        const outputs = [
          ...((isStepTask(step) ? this.outputs : this.afterOutputs).get(step.name)?.values() ?? []),
        ];
        if (!isStepTask(step)) return [outputs];
        return [outputs, step.needs.map((n) => this.steps[n]!), this.dependentsOf(step.index)];
      },
      anchors: [],
    };
    return node;
  }

  /** Resolves the names inside expressions to the nodes they stand for. */
  resolver(color: (ref: Node | undefined) => string): Resolver {
    return {
      step: (name) => color(this.steps[this.stepByName.get(name)?.index ?? -1]),
      output: (step, output) => color(this.outputs.get(step)?.get(output)),
      input: (name) => color(this.inputs.get(name)),
    };
  }

  private stepLabel(step: IrStep | IrAfterTask, c: (ref: Node | undefined) => string): string {
    const own = (isStepTask(step) ? this.outputs : this.afterOutputs).get(step.name);
    const resolve: Resolver = { ...this.resolver(c), ownOutput: (output) => c(own?.get(output)) };
    const t = (template: IrTemplate | null) => (template ? canonicalTemplate(template, resolve) : null);
    const isStep = 'needs' in step;
    const content = {
      kind: step.kind,
      title: t(step.title),
      role: step.role === null ? null : c(this.roles.get(step.role)),
      provider: step.provider,
      model: step.model,
      prompt: t(step.prompt),
      run: step.run.map(t),
      env: step.env.map((e) => [e.name, t(e.value)]).sort(byFirst),
      cwd: t(step.cwd),
      outcomes: step.outcomes
        .map((o) => [o.name, o.label, o.comment, transitionText(o.transition, c, this.steps, resolve)])
        .sort(byFirst),
      retries: step.retries,
      timeoutMs: step.timeoutMs,
      labels: step.labels.map((l) => [l.name, t(l.value)]).sort(byFirst),
      when: isStep && step.when ? canonicalExpression(step.when.expr, resolve) : null,
      gate: isStep && step.gate ? [t(step.gate.title), t(step.gate.summary)] : null,
      trigger: isStep ? null : step.trigger,
      on: isStep ? null : [...step.on].sort(),
    };
    return JSON.stringify(content);
  }

  private dependents: Node[][] | undefined;

  private dependentsOf(index: number): Node[] {
    if (!this.dependents) {
      this.dependents = this.ir.steps.map(() => []);
      for (const step of this.ir.steps)
        for (const n of step.needs) this.dependents[n]!.push(this.steps[step.index]!);
    }
    return this.dependents[index]!;
  }
}

function isStepTask(step: IrStep | IrAfterTask): step is IrStep {
  return 'needs' in step;
}

function byFirst(a: unknown[], b: unknown[]): number {
  const x = String(a[0]);
  const y = String(b[0]);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A role's content without its name; run and mcp lists compared as sets. */
export function roleContent(role: IrRole): string {
  const set = (value: boolean | string[]) => (Array.isArray(value) ? [...new Set(value)].sort() : value);
  const { read, edit, write, network, run, mcp } = role.tools;
  return JSON.stringify([
    role.base,
    role.instructions,
    role.provider,
    role.model,
    role.mode,
    [read, edit, write, network, set(run), set(mcp)],
  ]);
}

/** What a name in an expression is written as once names are taken out. */
export interface Resolver {
  step(name: string): string;
  output(step: string, output: string): string;
  input(name: string): string;
  /** `report.outputs.O` in a step's own transitions: that step's output O */
  ownOutput?(output: string): string;
}

function transitionText(
  transition: IrTransition,
  c: (ref: Node | undefined) => string,
  steps: Node[],
  resolve: Resolver,
): string {
  if (transition.kind !== 'loop') return transition.kind;
  const feedback = transition.feedback ? canonicalTemplate(transition.feedback, resolve) : '';
  return `loop(${c(steps[transition.target])},${transition.max},${transition.exhausted},${feedback})`;
}

/** A template as text, each name inside its expressions written by `resolve`. */
export function canonicalTemplate(template: IrTemplate, resolve: Resolver): string {
  return template.parts
    .map((p) => ('text' in p ? p.text : `\${{ ${canonicalExpression(p.expr, resolve)} }}`))
    .join('');
}

/** An expression as text, each name of a step, an output or an input written by `resolve`. */
export function canonicalExpression(expr: IrExpr, resolve: Resolver): string {
  const named = nameOf(expr, resolve);
  if (named !== undefined) return named;
  switch (expr.kind) {
    case 'literal':
      return JSON.stringify(expr.value);
    case 'context':
      return expr.name;
    case 'member':
      return `${canonicalExpression(expr.object, resolve)}.${expr.property}`;
    case 'index':
      return `${canonicalExpression(expr.object, resolve)}[${canonicalExpression(expr.index, resolve)}]`;
    case 'not':
      return `!(${canonicalExpression(expr.operand, resolve)})`;
    case 'binary':
      return `(${canonicalExpression(expr.left, resolve)} ${expr.operator} ${canonicalExpression(expr.right, resolve)})`;
    case 'call':
      return `${expr.function}(${expr.args.map((a) => canonicalExpression(a, resolve)).join(', ')})`;
    case 'list':
      return `[${expr.items.map((a) => canonicalExpression(a, resolve)).join(', ')}]`;
  }
}

/** `steps.S`, `steps.S.outputs.O` and `inputs.N` (dotted or indexed by a literal), written by `resolve`. */
function nameOf(expr: IrExpr, resolve: Resolver): string | undefined {
  const member = (e: IrExpr): [IrExpr, string] | undefined => {
    if (e.kind === 'member') return [e.object, e.property];
    if (e.kind === 'index' && e.index.kind === 'literal' && typeof e.index.value === 'string')
      return [e.object, e.index.value];
    return undefined;
  };
  const isContext = (e: IrExpr, name: string) => e.kind === 'context' && e.name === name;
  const outer = member(expr);
  if (!outer) return undefined;
  const [object, property] = outer;
  if (isContext(object, 'inputs')) return `inputs.${resolve.input(property)}`;
  const reported = member(object);
  if (resolve.ownOutput && reported && reported[1] === 'outputs' && isContext(reported[0], 'report'))
    return `report.outputs.${resolve.ownOutput(property)}`;
  if (isContext(object, 'steps')) return `steps.${resolve.step(property)}`;
  const middle = member(object);
  if (!middle || middle[1] !== 'outputs') return undefined;
  const inner = member(middle[0]);
  if (!inner || !isContext(inner[0], 'steps')) return undefined;
  return `steps.${resolve.step(inner[1])}.outputs.${resolve.output(inner[1], property)}`;
}

/** Matches the nodes of two versions of a playbook (the rule is on `Matching`). */
export function matchPlaybooks(base: Ir, head: Ir): Matching {
  const graphs = [new Graph(base), new Graph(head)] as const;
  const { colors, rounds } = refine([...graphs[0].all, ...graphs[1].all]);
  return matchingOf(graphs, pairNodes(graphs, colors, rounds), colors);
}

type Colors = Map<Node, string>;

/**
 * Colour refinement: round 0 colours each node by its own content, each later round by its colour and
 * its neighbours' colours, until a round splits no class; the colours of every round.
 */
function refine(nodes: readonly Node[]): { colors: Colors; rounds: Colors[] } {
  // colours are compared within a round only, so each round interns its labels afresh
  let interned = new Map<string, string>();
  let round = 0;
  const intern = (label: string) => {
    let id = interned.get(label);
    if (id === undefined) interned.set(label, (id = `${round}#${interned.size}`));
    return id;
  };
  // Each node's own label is written once with placeholders for the nodes it points at (private-use
  // characters, which JSON leaves as they are), then filled in each round: a round costs the size of
  // the labels, not their rendering.
  const shapes = new Map<Node, { parts: string[]; refs: (Node | undefined)[]; sets: Node[][] }>();
  for (const node of nodes) {
    const refs: (Node | undefined)[] = [];
    const text = node.label((ref) => `\u{E000}${refs.push(ref) - 1}\u{E001}`);
    const split = text.split(/\u{E000}(\d+)\u{E001}/u);
    const parts: string[] = [];
    const ordered: (Node | undefined)[] = [];
    split.forEach((piece, k) => (k % 2 === 0 ? parts.push(piece) : ordered.push(refs[Number(piece)])));
    shapes.set(node, { parts, refs: ordered, sets: node.sets() });
  }
  /** the whole label in round 0; after it, the node's own text is in its previous colour */
  const labelOf = (node: Node, color: (ref: Node | undefined) => string, whole: boolean) => {
    const { parts, refs, sets } = shapes.get(node)!;
    let text = whole ? parts[0]! : '';
    refs.forEach((ref, k) => (text += whole ? color(ref) + parts[k + 1]! : `${color(ref)},`));
    for (const set of sets) text += `|${set.map(color).sort().join(',')}`;
    return text;
  };
  // round 0: own content only, every node pointed at the same placeholder for its type
  let colors = new Map<Node, string>();
  for (const node of nodes)
    colors.set(node, intern(`${node.type}:${labelOf(node, (ref) => (ref ? ref.type : '-'), true)}`));
  const rounds = [colors];
  let classes = new Set(colors.values()).size;
  for (round = 1; round <= nodes.length; round++) {
    const previous = colors;
    const color = (ref: Node | undefined) => (ref ? previous.get(ref)! : '-');
    const next = new Map<Node, string>();
    interned = new Map();
    for (const node of nodes) next.set(node, intern(`${previous.get(node)}:${labelOf(node, color, false)}`));
    const count = new Set(next.values()).size;
    colors = next;
    rounds.push(colors);
    if (count === classes) break;
    classes = count;
  }
  return { colors, rounds };
}

/** The base node each head node matches, by the steps of the rule on `Matching` (2 to 5). */
function pairNodes(
  graphs: readonly [Graph, Graph],
  colors: Colors,
  rounds: readonly Colors[],
): Map<Node, Node> {
  const sideOf = new Map<Node, 0 | 1>();
  graphs.forEach((g, side) => g.all.forEach((n) => sideOf.set(n, side as 0 | 1)));
  const headPosition = new Map(graphs[1].all.map((n, i) => [n, i]));
  const matched = new Map<Node, Node>();
  const taken = new Set<Node>();
  const pair = (b: Node, h: Node) => {
    matched.set(b, h);
    taken.add(h);
  };
  const free = (side: 0 | 1) =>
    graphs[side].all.filter((n) => n.type !== 'output' && (side === 0 ? !matched.has(n) : !taken.has(n)));

  // 2: the final classes
  for (const [b, h] of classPairs(free(0), free(1), (n) => `${n.type}${colors.get(n)}`, true)) pair(b, h);
  // 3: the largest neighbourhood that still looks the same
  for (let round = rounds.length - 2; round >= 0; round--) {
    const at = rounds[round]!;
    for (const [b, h] of classPairs(free(0), free(1), (n) => `${n.type}${at.get(n)}`, false)) pair(b, h);
  }
  // 4: by name; 5: by place. A role goes by place first: what a role is, is the steps that run in
  // it, and a playbook that renames its \`implementer\` still has the undeclared fixed one of that name
  const byName = (types: readonly NodeType[]) => {
    const of = (side: 0 | 1) => free(side).filter((n) => types.includes(n.type));
    for (const [b, h] of classPairs(of(0), of(1), (n) => `${n.type}\0${n.kind}\0${n.name}`, false))
      pair(b, h);
  };
  const byPlace = () => {
    for (let moved = true; moved;) {
      moved = false;
      const key = (n: Node, side: 0 | 1) => {
        // A step that needs nothing is placed by the steps that need it (the first step of a
        // playbook renamed and changed at once is still the one its dependents need).
        const byFollowers = n.anchors.length === 0;
        const around = byFollowers ? (n.followers ?? []) : n.anchors;
        if (around.length === 0) return undefined;
        const anchors = around.map((a) => (side === 0 ? matched.get(a) : a));
        if (anchors.some((a) => a === undefined || (side === 1 && !taken.has(a)))) return undefined;
        return `${n.type}\0${n.kind}\0${byFollowers ? 'before' : 'after'}\0${anchors
          .map((a) => headPosition.get(a!)!)
          .sort((x, y) => x - y)
          .join(',')}`;
      };
      const keyed = (side: 0 | 1) => free(side).filter((n) => key(n, side) !== undefined);
      for (const [b, h] of classPairs(keyed(0), keyed(1), (n) => key(n, sideOf.get(n)!)!, false)) {
        pair(b, h);
        moved = true;
      }
    }
  };
  byName(['step', 'after', 'input']);
  byPlace();
  byName(['role']);
  byPlace();
  return matched;
}

/** The matching by index and name, and each matched step's outputs paired by colour, then by name. */
function matchingOf(
  graphs: readonly [Graph, Graph],
  matched: ReadonlyMap<Node, Node>,
  colors: Colors,
): Matching {
  const matching: Matching = {
    steps: new Map(),
    after: new Map(),
    roles: new Map(),
    inputs: new Map(),
    outputs: new Map(),
  };
  const stepIndex = graphs.map((g) => new Map(g.steps.map((n, i) => [n, i])));
  for (const [b, h] of matched) {
    if (b.type === 'step') {
      matching.steps.set(stepIndex[0]!.get(b)!, stepIndex[1]!.get(h)!);
      const outputs = [graphs[0].outputs.get(b.name), graphs[1].outputs.get(h.name)];
      const [bo, ho] = outputs.map((o) => [...(o?.values() ?? [])]) as [Node[], Node[]];
      const pairs = classPairs(bo, ho, (n) => colors.get(n)!, true);
      const left = [
        bo.filter((n) => !pairs.some(([x]) => x === n)),
        ho.filter((n) => !pairs.some(([, y]) => y === n)),
      ];
      pairs.push(...classPairs(left[0]!, left[1]!, (n) => n.name, true));
      for (const [x, y] of pairs) matching.outputs.set(`${b.name}\0${x.name}`, y.name);
    } else if (b.type === 'after') matching.after.set(graphs[0].after.indexOf(b), graphs[1].after.indexOf(h));
    else if (b.type === 'role') matching.roles.set(b.name, h.name);
    else if (b.type === 'input') matching.inputs.set(b.name, h.name);
  }
  return matching;
}

/**
 * Pairs the nodes of the two sides that share a key. With `all`, every node of a class is paired (same
 * name first, then in order); without, only classes of exactly one node on each side.
 */
function classPairs(base: Node[], head: Node[], key: (n: Node) => string, all: boolean): [Node, Node][] {
  const classes = new Map<string, [Node[], Node[]]>();
  for (const [side, list] of [base, head].entries()) {
    for (const node of list) {
      const k = key(node);
      let entry = classes.get(k);
      if (!entry) classes.set(k, (entry = [[], []]));
      entry[side]!.push(node);
    }
  }
  const pairs: [Node, Node][] = [];
  for (const [b, h] of classes.values()) {
    if (b.length === 0 || h.length === 0) continue;
    if (!all) {
      if (b.length === 1 && h.length === 1) pairs.push([b[0]!, h[0]!]);
      continue;
    }
    const rest = [...h];
    const left: Node[] = [];
    for (const node of b) {
      const same = rest.findIndex((n) => n.name === node.name);
      if (same >= 0) pairs.push([node, rest.splice(same, 1)[0]!]);
      else left.push(node);
    }
    left.forEach((node, i) => {
      if (rest[i]) pairs.push([node, rest[i]]);
    });
  }
  return pairs;
}
