/**
 * Every listener (the Kairoku app, the step agents' report endpoint, the runner's capacity listener)
 * judges its host by what it resolves to, with Node's own `dns.lookup` — the call `server.listen`
 * makes — not by how it is spelled (issue 11: `0`, `0x0`, `00.0.0.0` and `0.0` all bind 0.0.0.0).
 */
import { describe, expect, it } from 'vitest';
import { addressKind, literalKind, resolveBindAddress } from '../../src/backends/bind-address.js';
import type { Lookup } from '../../src/backends/bind-address.js';
import { startKairokuServer } from '../../src/backends/kairoku/server.js';
import { isLoopback, isWildcard } from '../../src/backends/kairoku/protocol.js';
import { startReportEndpoint } from '../../src/backends/report-endpoint.js';

const WILDCARDS = ['0', '0x0', '00.0.0.0', '0.0', '0.0.0.0', '000', '0x00000000', '::', '[::]', '0::0'];
const WILDCARDS_V6 = ['::0', '0:0:0:0:0:0:0:0', '::0.0.0.0', '::ffff:0.0.0.0', '[::ffff:0.0.0.0]'];
const LOOPBACKS = ['127.0.0.1', '127.1', '0x7f.1', '0177.0.0.1', '2130706433', '127.255.255.254'];
const LOOPBACKS_V6 = ['::1', '[::1]', '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:0:0:1'];
const ELSEWHERE = [
  '192.168.1.5',
  '10.1',
  '0xa000001',
  '8.8.8.8',
  '::ffff:192.168.1.5',
  'fe80::1',
  '::127.0.0.1',
];

const handler = { handle: () => ({ status: 200, body: {} }), fault: () => undefined };
const appToken = 'an-app-token-long-enough';

describe('resolveBindAddress', () => {
  it.each([...WILDCARDS, ...WILDCARDS_V6])('refuses %j, the wildcard however spelled', async (host) => {
    await expect(resolveBindAddress(host, { what: 'x' })).rejects.toThrow(/wildcard/);
    // Allowing other interfaces never allows every interface.
    await expect(resolveBindAddress(host, { what: 'x', allowNonLoopback: true })).rejects.toThrow(/wildcard/);
  });

  it('refuses the empty host, which Node binds to every interface', async () => {
    await expect(resolveBindAddress('', { what: 'x' })).rejects.toThrow(/every interface/);
    await expect(resolveBindAddress('  ', { what: 'x', allowNonLoopback: true })).rejects.toThrow(
      /every interface/,
    );
  });

  it.each([...LOOPBACKS, ...LOOPBACKS_V6, 'localhost'])('binds %j, a loopback address', async (host) => {
    const address = await resolveBindAddress(host, { what: 'x' });
    expect(addressKind(address)).toBe('loopback');
  });

  it('returns the address the host resolved to, which is what the listener binds', async () => {
    expect(await resolveBindAddress('127.1', { what: 'x' })).toBe('127.0.0.1');
    expect(await resolveBindAddress('2130706433', { what: 'x' })).toBe('127.0.0.1');
    expect(await resolveBindAddress('[::1]', { what: 'x' })).toBe('::1');
  });

  it.each(ELSEWHERE)('refuses %j, an address others can reach, unless allowed', async (host) => {
    await expect(resolveBindAddress(host, { what: 'the thing', howToAllow: 'say --yes' })).rejects.toThrow(
      /the thing binds loopback only: .* is not a loopback address .*; to let other machines reach it, say --yes/,
    );
    expect(addressKind(await resolveBindAddress(host, { what: 'x', allowNonLoopback: true }))).toBe('other');
  });

  it('judges a name by the address it resolves to', async () => {
    const names: Record<string, string> = {
      'all.example': '0.0.0.0',
      'all6.example': '::',
      'lan.example': '192.168.1.5',
      'me.example': '127.0.0.2',
    };
    const lookup: Lookup = async (host) => {
      const address = names[host];
      if (!address) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
      return { address, family: address.includes(':') ? 6 : 4 };
    };
    await expect(resolveBindAddress('all.example', { what: 'x', lookup })).rejects.toThrow(
      /wildcard address "all.example" \(it resolves to 0\.0\.0\.0\)/,
    );
    await expect(
      resolveBindAddress('all6.example', { what: 'x', lookup, allowNonLoopback: true }),
    ).rejects.toThrow(/wildcard/);
    await expect(resolveBindAddress('lan.example', { what: 'x', lookup })).rejects.toThrow(
      /"lan.example" \(it resolves to 192\.168\.1\.5\) is not a loopback address/,
    );
    expect(await resolveBindAddress('me.example', { what: 'x', lookup })).toBe('127.0.0.2');
    await expect(resolveBindAddress('nowhere.example', { what: 'x', lookup })).rejects.toThrow(
      /cannot resolve the host "nowhere.example"/,
    );
  });

  it('agrees with the allow-lists that judge a literal at once', () => {
    for (const host of ['0.0.0.0', '::', '[::]', '::ffff:0.0.0.0', '', '0::0'])
      expect(isWildcard(host)).toBe(true);
    for (const host of [...LOOPBACKS.slice(0, 1), ...LOOPBACKS_V6, 'localhost', '127.9.9.9'])
      expect(isLoopback(host)).toBe(true);
    // Forms only a resolver reads are not judged loopback without one (an allow-list refuses them).
    for (const host of ['0', '0x0', '127.1', '2130706433', 'example.com', '192.168.1.5']) {
      expect(isLoopback(host)).toBe(false);
      expect(literalKind(host)).toBe('other');
    }
  });
});

describe('the listeners', () => {
  it.each(['0', '0x0', '00.0.0.0', '0.0', '[::]', '::ffff:0.0.0.0'])(
    'the Kairoku app refuses %j, even with other interfaces allowed',
    async (host) => {
      await expect(
        startKairokuServer(handler, { host, port: 0, appToken, allowNonLoopback: true }),
      ).rejects.toThrow(/wildcard/);
    },
  );

  it('the Kairoku app binds loopback by default and refuses another interface unless allowed', async () => {
    await expect(startKairokuServer(handler, { host: '192.168.1.5', port: 0, appToken })).rejects.toThrow(
      /loopback only.*--allow-remote-runners/,
    );
    const server = await startKairokuServer(handler, { host: '127.1', port: 0, appToken });
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    await server.close();
  });

  it.each(['0', '0x0', '0.0', '::', '192.168.1.5'])('the report endpoint refuses %j', async (host) => {
    await expect(startReportEndpoint({ host, onReport: () => undefined })).rejects.toThrow(/report endpoint/);
  });
});
