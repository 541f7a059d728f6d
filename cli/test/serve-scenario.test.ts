/**
 * `serve --scenario FILE` (sim): a scenario whose shape is wrong is refused before serve starts; one that
 * does not fit a run's playbook is said in serve's log, once per playbook, and its runs report each
 * step's first outcome.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, callServe, runCli, startServe, tempDir } from '../../test/kit/index.js';
import type { RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';

function workspace(scenario: string): { dir: string; scenario: string } {
  const dir = tempDir('kp-serve-scenario-');
  mkdirSync(join(dir, 'playbooks'));
  for (const name of ['pr.yml', 'research.yml'])
    copyFileSync(join(REPO, 'playbooks', name), join(dir, 'playbooks', name));
  writeFileSync(join(dir, 'scenario.yml'), scenario);
  return { dir, scenario: join(dir, 'scenario.yml') };
}

describe('serve --scenario', () => {
  it('refuses a scenario whose shape is wrong, before it starts', () => {
    const { dir, scenario } = workspace('steps:\n  qa: [{ outcome: fail, sumary: 2 failing }]\n');
    const result = runCli(['serve', dir, '--listen', '127.0.0.1:0', '--scenario', scenario], {
      env: { KAIROKU_PLAYBOOK_HOME: tempDir('kp-serve-scenario-home-') },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('steps.qa[0]: unknown key "sumary"; did you mean "summary"?');
  });

  it('says in its log when the scenario does not fit a run’s playbook, once, and runs it unscripted', async () => {
    const { dir, scenario } = workspace('steps:\n  qa: [{ outcome: fail }, { outcome: pass }]\n');
    const serving = await startServe({
      workspace: dir,
      home: tempDir('kp-serve-scenario-home-'),
      args: ['--scenario', scenario],
    });
    try {
      for (let i = 0; i < 2; i++) {
        const started = await callServe<StartAnswer>(serving, '/api/v1/runs', {
          playbook: 'playbooks/research.yml',
          inputs: { question: 'Which queue?' },
        });
        expect(started.status).toBe(201);
        const id = started.body.run.id;
        for (let tries = 0; ; tries++) {
          const detail = await callServe<RunDetail>(serving, `/api/v1/runs/${id}`);
          if (detail.body.run.status === 'completed') break;
          if (tries > 300) throw new Error(`run ${id} is ${detail.body.run.status}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const said = serving
        .stderr()
        .split('\n')
        .filter((line) => line.includes('does not fit'));
      expect(said).toEqual([
        expect.stringMatching(
          /^kairoku-playbook: serve: the scenario does not fit .*research\.yml \(steps\.qa: unknown step "qa".*\): its runs report each step's first outcome$/,
        ),
      ]);
    } finally {
      await serving.stop();
    }
  }, 60_000);
});
