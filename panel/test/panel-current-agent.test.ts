/**
 * Issue 30 in Chromium against the stand-in serve, as serve on Paseo shows it: the start form names the
 * workspace's current agent and makes it the manager by default; one that may lack the tools is named
 * with the reason, and serve itself stays the default. Driven by accessible names.
 */
import { describe, expect, it } from 'vitest';
import { chromiumAgainstFakeApi } from './support/chromium-fixture.js';
import { axeProblems, openPanelAt } from './support/panel-page.js';

const chromium = chromiumAgainstFakeApi();

const lastStart = () =>
  (chromium.fake.bodies.get('/api/v1/runs') ?? []).at(-1) as { options?: Record<string, unknown> };

describe('Start with the current agent', () => {
  it('names the current agent, picks it by default, and sends it with the start', async () => {
    chromium.fake.offerCurrentAgent({
      agent: { id: 'a-1', title: 'My agent', provider: 'claude', busy: true },
    });
    const { page, problems } = await openPanelAt(chromium.browser, chromium.fake);
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    const current = form.getByRole('radio', {
      name: 'Your current agent: My agent (claude, busy: the kickoff waits for the end of its turn)',
    });
    await expect.poll(() => current.isChecked()).toBe(true);
    await expect(form.getByRole('radio', { name: 'A new agent' }).isChecked()).resolves.toBe(false);
    expect(await axeProblems(page)).toEqual([]);
    await form.getByLabel('task').fill('With my agent');
    await form.getByRole('button', { name: 'Start run' }).click();
    await expect.poll(() => lastStart()?.options?.currentAgent).toBe('a-1');
    expect(lastStart().options?.newAgent).toBeUndefined();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('says why an agent may lack the tools and keeps serve itself the default; a new agent can be picked', async () => {
    chromium.fake.offerCurrentAgent({
      agent: { id: 'a-2', title: 'ACP agent', provider: 'copilot', busy: false },
      warning: 'the current agent "ACP agent" runs on copilot, which reads no MCP server from the workspace',
    });
    const { page } = await openPanelAt(chromium.browser, chromium.fake);
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await form.getByText('which reads no MCP server from the workspace').waitFor();
    await expect(form.getByRole('radio', { name: /serve itself/ }).isChecked()).resolves.toBe(true);
    await form.getByRole('radio', { name: 'A new agent' }).check();
    await form.getByLabel('task').fill('On a new agent');
    await form.getByRole('button', { name: 'Start run' }).click();
    await expect.poll(() => lastStart()?.options?.newAgent).toBe(true);
    expect(lastStart().options?.currentAgent).toBeUndefined();
    await page.context().close();
  });
});
