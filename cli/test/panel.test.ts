/**
 * `kairoku-playbook panel [--port N]`, the contract's name for serving the panel (SPEC §7): its arguments
 * become serve's, and the built CLI's `panel` is a real serve on 127.0.0.1 whose page and API answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { panelArgs } from '../src/commands/panel.js';
import { UsageError } from '../src/usage-error.js';
import { prWorkspace, runCli, serveApi, startServe } from '../../test/kit/index.js';

describe("panel's arguments as serve's", () => {
  it('turns --port N and --port=N into --listen 127.0.0.1:N, and passes the rest on', () => {
    expect(panelArgs(['--port', '8080'])).toEqual(['--listen', '127.0.0.1:8080']);
    expect(panelArgs(['ws', '--port=0', '--backend', 'sim'])).toEqual([
      'ws',
      '--backend',
      'sim',
      '--listen',
      '127.0.0.1:0',
    ]);
    expect(panelArgs(['ws', '--scenario', 's.yml'])).toEqual(['ws', '--scenario', 's.yml']); // serve's default port
    expect(panelArgs(['--port', '007'])).toEqual(['--listen', '127.0.0.1:7']);
    expect(panelArgs(['--', '--port', '1'])).toEqual(['--', '--port', '1']); // past `--`, a folder's name
  });

  it('refuses what is not a port, a missing value, and --listen', () => {
    const refusal = (argv: string[]) => {
      try {
        panelArgs(argv);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal(['--port', '65536'])).toBe(
      '--port takes a port number from 0 to 65535 (0 picks a free one), not "65536"',
    );
    expect(refusal(['--port=http'])).toMatch(/not "http"$/);
    expect(refusal(['--port'])).toBe('option --port needs a value');
    expect(refusal(['--port', '--backend'])).toBe('option --port needs a value');
    expect(refusal(['--listen', '0.0.0.0:1'])).toMatch(/^panel takes --port N; for another address use/);
  });
});

describe('panel, the built CLI', () => {
  const workspace = prWorkspace();
  afterAll(() => workspace.cleanup());

  it('answers a usage error with exit 2 before loading serve', () => {
    const result = runCli(['panel', '--port', 'x']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port takes a port number');
  });

  it("serves the panel's page and API on the port it was given", async () => {
    const served = await startServe({ workspace: workspace.root, home: workspace.home, command: 'panel' });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // the printed login URL logs a browser in (a session cookie), then the page is the panel's
      const login = await fetch(served.login, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${served.url}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('panel.js');
      const answer = await serveApi(served.url, served.token)('/api/v1/playbooks');
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).toContain('"playbooks/pr.yml"');
    } finally {
      await served.stop();
    }
  });
});
