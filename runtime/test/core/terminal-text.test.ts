/**
 * `forTerminal`: the one function every terminal path sends outside text through (issue 11: a report
 * summary with `ESC ] 0 ; … BEL ESC [ 2 J` retitled and cleared the terminal of `run` and `runs show`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forTerminal } from '@kairoku-playbook/machine';
import { ensureRunnerBuilt, gitRepo, removeTempDirs, spawnRunner } from '../../../test/kit/index.js';

/** Anything a terminal acts on: C0 but tab and line feed, DEL, C1, bidirectional controls. */
const ACTED_ON = new RegExp(String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]`);

describe('forTerminal', () => {
  it.each([
    ['an OSC title and a clear screen', 'ok\x1b]0;pwned\x07\x1b[2Jdone', 'okdone'],
    ['an OSC ended by ST', 'a\x1b]0;t\x1b\\b', 'ab'],
    [
      'OSC 8 hyperlinks and OSC 52 clipboard writes',
      'u\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\\x1b]52;c;aGk=\x07',
      'ulink',
    ],
    ['colours and cursor moves', '\x1b[31mred\x1b[0m\x1b[3A\x1b[2K\x1b[?25l', 'red'],
    ['a DCS string', 'x\x1bPq#0;1;2\x1b\\y', 'xy'],
    ['APC, PM and SOS strings', 'a\x1b_x\x1b\\b\x1b^y\x1b\\c\x1bXz\x1b\\d', 'abcd'],
    ['two-character ESC sequences (reset, save cursor, charset)', 'a\x1bcb\x1b7c\x1b(0d', 'abcd'],
    ['an ESC at the very end', 'end\x1b', 'end'],
    ['an OSC never ended: only its introducer goes', 'x\x1b]0;title', 'x0;title'],
    ['carriage return, backspace, bell, DEL, NUL', 'a\rb\bc\x07d\x7fe\x00f', 'abcdef'],
    ['8-bit CSI, OSC and DCS', 'a\x9b2Jb\x9d0;t\x9cc\x90q\x9cd', 'abcd'],
    ['other C1 controls (NEL, IND)', 'a\x85b\x84c', 'abc'],
    ['bidirectional overrides and isolates', 'a\u202eb\u202dc\u2066d\u2069e\u202af\u202cg', 'abcdefg'],
  ])('takes out %s', (_what, text, shown) => {
    expect(forTerminal(text)).toBe(shown);
  });

  it('keeps line feeds, tabs and every printable character', () => {
    const text = 'line 1\n\tline 2 ✓ é 日本 👍🏽 « » ‏‎';
    expect(forTerminal(text)).toBe(text);
  });

  it('keeps one line one line when asked', () => {
    expect(forTerminal('a\nb\t\tc\r\nd', { oneLine: true })).toBe('a b c d');
  });

  it('leaves nothing a terminal would act on, for any input', () => {
    for (let code = 0; code < 0x3000; code++) {
      const text = `x${String.fromCharCode(code)}[2J${String.fromCharCode(code)}y`;
      expect(forTerminal(text)).not.toMatch(ACTED_ON);
    }
  });
});

describe('the runner’s messages', { timeout: 60_000 }, () => {
  it('prints an app’s 401 message without its control sequences', async () => {
    ensureRunnerBuilt();
    const repo = gitRepo();
    const app = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { code: 'unauthorized', message: 'go away\x1b]0;pwned\x07\x1b[2J\u202e' },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const runner = await spawnRunner({ app: url, repo });
      expect(await runner.exit).toBe(3);
      const stderr = runner.stderr.join('\n');
      expect(stderr).toContain('stopping. go away');
      expect(stderr).not.toMatch(ACTED_ON);
    } finally {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
      removeTempDirs();
    }
  });
});
