/**
 * The runnable examples of the docs (the format: docs.test.ts), read from their Markdown. Shared by the docs
 * test, which runs them, and by `npm run generate`, which writes each clean one out as a test/fixtures/ok
 * fixture (scripts/generate.mjs); so this module imports nothing but Node.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// ------------------------------------------------------------------------------------ markdown blocks

export interface Fence {
  /** the info string after the opening fence, trimmed */
  info: string;
  /** the first word of the info string */
  lang: string;
  attributes: Map<string, string>;
  /** the block's text, lines joined with "\n", without a final line break */
  content: string;
  /** 0-based line of the opening fence */
  open: number;
  /** 0-based line of the closing fence (the last line of the file for an unclosed block) */
  close: number;
}

/** Fenced code blocks of a CommonMark document (backtick or tilde fences, any length, indented up to 3). */
export function fencedBlocks(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const blocks: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!opening) continue;
    const [, indent, fence, rest] = opening;
    if (fence![0] === '`' && rest!.includes('`')) continue; // not a fence: inline code
    const info = rest!.trim();
    let j = i + 1;
    const closing = new RegExp(`^ {0,3}${fence![0] === '`' ? '`' : '~'}{${fence!.length},}\\s*$`);
    while (j < lines.length && !closing.test(lines[j]!)) j++;
    const content = lines
      .slice(i + 1, j)
      .map((line) => stripIndent(line, indent!.length))
      .join('\n');
    blocks.push({
      info,
      lang: info.split(/\s+/)[0] ?? '',
      attributes: attributesOf(info),
      content,
      open: i,
      close: j,
    });
    i = j;
  }
  return blocks;
}

function stripIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === ' ') n++;
  return line.slice(n);
}

/** `key=value` and `key="a value"` pairs of an info string; a bare word is a key with the value "". */
function attributesOf(info: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const words = info.split(/\s+/).slice(1).join(' ');
  for (const match of words.matchAll(/([\w-]+)(?:=("([^"]*)"|\S+))?/g)) {
    attributes.set(match[1]!, match[3] ?? match[2] ?? '');
  }
  return attributes;
}

function isBlankBetween(lines: readonly string[], from: number, to: number): boolean {
  return lines.slice(from, to).every((line) => line.trim() === '');
}

// ------------------------------------------------------------------------------------ examples

export interface Example {
  doc: string;
  /** 1-based line of the first playbook block, for test names and messages */
  line: number;
  files: { name: string; text: string }[];
  /** the output block, if any */
  output: Fence | undefined;
  args: string[];
  /** which stream the output block shows; the other one must be empty */
  stream: 'stdout' | 'stderr';
  exit: number | undefined;
}

export interface DocProblems {
  examples: Example[];
  /** YAML blocks that are neither runnable playbooks nor marked fragments, stray output blocks, … */
  problems: string[];
  fragments: Fence[];
}

export function examplesOf(doc: string, markdown: string): DocProblems {
  const lines = markdown.split('\n');
  const blocks = fencedBlocks(markdown);
  const examples: Example[] = [];
  const problems: string[] = [];
  const fragments: Fence[] = [];
  const where = (block: Fence) => `${doc}:${block.open + 1}`;
  for (let k = 0; k < blocks.length; k++) {
    const block = blocks[k]!;
    const isYaml = block.lang === 'yaml' || block.lang === 'yml';
    if (block.attributes.has('output')) {
      if (block.attributes.has('args')) examples.push(exampleOf(doc, block.open + 1, [], block));
      else
        problems.push(
          `${where(block)}: an output block needs \`args\` or a \`yaml file=NAME.yml\` block before it`,
        );
      continue;
    }
    if (!isYaml) continue;
    if (block.attributes.has('fragment')) {
      fragments.push(block);
      continue;
    }
    const name = block.attributes.get('file');
    if (!name) {
      problems.push(
        `${where(block)}: a YAML block must be a runnable playbook (\`yaml file=NAME.yml\`) or a \`yaml fragment\``,
      );
      continue;
    }
    // This block and the `file=` blocks directly after it are one workspace.
    const group = [block];
    while (
      k + 1 < blocks.length &&
      blocks[k + 1]!.attributes.has('file') &&
      isBlankBetween(lines, group[group.length - 1]!.close + 1, blocks[k + 1]!.open)
    ) {
      group.push(blocks[++k]!);
    }
    // The output blocks directly after it show commands run on these files.
    const outputs: Fence[] = [];
    let previous = group[group.length - 1]!;
    while (
      k + 1 < blocks.length &&
      blocks[k + 1]!.attributes.has('output') &&
      isBlankBetween(lines, previous.close + 1, blocks[k + 1]!.open)
    ) {
      previous = blocks[++k]!;
      outputs.push(previous);
    }
    const files = group.map((b) => ({ name: b.attributes.get('file')!, text: `${b.content}\n` }));
    const names = files.map((f) => f.name);
    if (new Set(names).size !== names.length)
      problems.push(`${where(block)}: two files of one example share a name`);
    if (outputs.length === 0) examples.push(exampleOf(doc, block.open + 1, files, undefined));
    for (const output of outputs) examples.push(exampleOf(doc, output.open + 1, files, output));
  }
  return { examples, problems, fragments };
}

function exampleOf(doc: string, line: number, files: Example['files'], output: Fence | undefined): Example {
  const args = output?.attributes.get('args')?.split(/\s+/).filter(Boolean) ?? [
    'check',
    ...files.map((f) => f.name),
  ];
  const exitText = output?.attributes.get('exit');
  return {
    doc,
    line,
    files,
    output,
    args,
    stream: output?.attributes.get('stream') === 'stderr' ? 'stderr' : 'stdout',
    exit: exitText === undefined ? undefined : Number(exitText),
  };
}

/** The Markdown files below `folder`, sorted. */
export function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.split(/[\\/]/).includes('node_modules'))
    .map((name) => join(folder, name))
    .sort();
}
