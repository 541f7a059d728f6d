/**
 * The runner's provider choice (`--provider` and its flags) and the pieces of the providers that need
 * no process: how a Claude Code tool call meets the one policy function (RF-017), and what the
 * EventQueue hands on.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRunnerArgs } from '../../src/runner/options.js';
import type { RunnerOptions } from '../../src/runner/options.js';
import { disallowedFor, toolCallOf } from '../../src/runner/providers/claude.js';
import { EventQueue } from '../../src/runner/providers/types.js';
import { providerFor } from '../../src/runner/providers/index.js';
import { tempDir } from '../../../test/kit/index.js';

const dir = tempDir('kairoku-provider-units-');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, 'a-token-that-is-long-enough\n');
const base = ['--app', 'http://127.0.0.1:7400', '--token-file', tokenFile, '--repo', dir];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parse(...args: string[]): RunnerOptions | string {
  return parseRunnerArgs([...base, ...args]);
}

describe('--provider', () => {
  it('is command with --agent-command, none without either (checks only)', () => {
    expect(parse('--agent-command', 'my-agent')).toMatchObject({
      provider: 'command',
      agentCommand: 'my-agent',
    });
    expect(parse()).toMatchObject({ provider: undefined });
    expect(providerFor(parse() as RunnerOptions)).toBeUndefined();
  });

  it('names claude or codex, each with its own executable flag', () => {
    const claude = parse('--provider', 'claude', '--claude-executable', '/opt/claude');
    expect(claude).toMatchObject({ provider: 'claude', claudeExecutable: '/opt/claude' });
    expect(providerFor(claude as RunnerOptions)!.name).toBe('claude');
    const codex = parse('--provider=codex');
    expect(codex).toMatchObject({ provider: 'codex', codexExecutable: undefined });
    expect(providerFor(codex as RunnerOptions)!.name).toBe('codex');
  });

  it('refuses what does not fit, saying what would', () => {
    expect(parse('--provider', 'gemini')).toBe('--provider takes command, claude, codex, not "gemini"');
    expect(parse('--provider', 'command')).toBe('--provider command needs --agent-command CMD');
    expect(parse('--provider', 'claude', '--agent-command', 'x')).toMatch(
      /--agent-command is the command provider's/,
    );
    expect(parse('--provider', 'codex', '--claude-executable', '/x')).toBe(
      '--claude-executable is for --provider claude',
    );
    expect(parse('--codex-executable', '/x')).toBe('--codex-executable is for --provider codex');
  });
});

describe('a Claude Code tool call under the tool policy (RF-017)', () => {
  it('maps each file, command and network tool to the one policy function’s call', () => {
    expect(toolCallOf('Read', { file_path: '/w/a.ts' })).toEqual({ tool: 'read', path: '/w/a.ts' });
    expect(toolCallOf('Grep', { pattern: 'x' })).toEqual({ tool: 'read', path: '.' });
    expect(toolCallOf('Glob', { pattern: '*', path: 'src' })).toEqual({ tool: 'read', path: 'src' });
    expect(toolCallOf('Edit', { file_path: 'a.ts' })).toEqual({ tool: 'edit', path: 'a.ts' });
    expect(toolCallOf('MultiEdit', { file_path: 'a.ts' })).toEqual({ tool: 'edit', path: 'a.ts' });
    expect(toolCallOf('NotebookEdit', { notebook_path: 'n.ipynb' })).toEqual({
      tool: 'edit',
      path: 'n.ipynb',
    });
    expect(toolCallOf('Write', { file_path: 'b.ts' })).toEqual({ tool: 'write', path: 'b.ts' });
    expect(toolCallOf('Bash', { command: 'npm test' })).toEqual({ tool: 'run', command: 'npm test' });
    expect(toolCallOf('WebFetch', { url: 'https://example.com' })).toEqual({ tool: 'network' });
    expect(toolCallOf('mcp__github__create_issue', {})).toEqual({ tool: 'mcp', server: 'github' });
  });

  it('always allows the report endpoint and the session’s own to-do list', () => {
    expect(toolCallOf('mcp__kairoku__report_step_result', { outcome: 'done' })).toBe('allow');
    expect(toolCallOf('TodoWrite', { todos: [] })).toBe('allow');
  });

  it('denies a tool the policy has no place for (fail closed), saying which', () => {
    expect(toolCallOf('Task', {})).toBe("the runner's tool policy has no place for the tool Task: denied");
    expect(toolCallOf('KillShell', {})).toMatch(/no place for the tool KillShell/);
  });

  it('takes away the tools of a kind the role may not use at all', () => {
    const reviewer = { read: true, edit: false, write: false, network: false, run: ['npm test'], mcp: false };
    expect(disallowedFor(reviewer)).toEqual([
      'Edit',
      'MultiEdit',
      'NotebookEdit',
      'Write',
      'WebFetch',
      'WebSearch',
    ]);
    expect(disallowedFor({ ...reviewer, read: false, run: [] })).toEqual(
      expect.arrayContaining(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'Bash']),
    );
    expect(
      disallowedFor({ read: true, edit: true, write: true, network: true, run: true, mcp: true }),
    ).toEqual([]);
  });

  it('gives a call without its path an empty one, which the policy denies', () => {
    expect(toolCallOf('Write', {})).toEqual({ tool: 'write', path: '' });
    expect(toolCallOf('Bash', { command: 42 })).toEqual({ tool: 'run', command: '' });
  });
});

describe('EventQueue', () => {
  it('hands on every event in order, also those pushed before it was read, and ends', async () => {
    const queue = new EventQueue();
    queue.push({ raw: { n: 1 } });
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const event of queue) seen.push(event.raw.n);
    })();
    queue.push({ raw: { n: 2 } });
    await Promise.resolve();
    queue.push({ raw: { n: 3 } });
    queue.end();
    queue.push({ raw: { n: 4 } });
    await reading;
    expect(seen).toEqual([1, 2, 3]);
  });
});
