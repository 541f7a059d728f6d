/**
 * `kairoku-playbook panel [--port N]`, the contract's name for serving the panel (SPEC §7): serve, whose
 * `--port N` is `--listen 127.0.0.1:N`. The built CLI's `panel` is a real serve on 127.0.0.1 whose page
 * and API answer; a port that is not one is a usage error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { prWorkspace, runCli, serveApi, startServe } from '../../test/kit/index.js';

const workspace = prWorkspace();
afterAll(() => workspace.cleanup());

describe('panel, the built CLI', () => {
  it('refuses what is not a port, a missing value, and --port with --listen (exit 2)', () => {
    const refusal = (args: string[]) => {
      const result = runCli(args, { cwd: workspace.root, home: workspace.home });
      expect(result.status).toBe(2);
      return result.stderr;
    };
    expect(refusal(['panel', '--port', '65536'])).toBe(
      'kairoku-playbook: --port takes a port number from 0 to 65535 (0 picks a free one), not "65536"\n',
    );
    expect(refusal(['panel', '--port=http'])).toMatch(/not "http"\n$/);
    expect(refusal(['panel', '--port'])).toBe('kairoku-playbook: option --port needs a value\n');
    expect(refusal(['serve', '--port', '1', '--listen', '127.0.0.1:2'])).toBe(
      'kairoku-playbook: --port N is --listen 127.0.0.1:N: give one of them\n',
    );
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
