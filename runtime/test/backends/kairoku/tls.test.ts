import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  KairokuBackend,
  fingerprintOf,
  makeSelfSigned,
  normalizeFingerprint,
  selfSignedIdentity,
} from '../../../src/backends/kairoku/index.js';
import { derInteger } from '../../../src/backends/kairoku/tls.js';
import { AppClient, AppUntrusted } from '../../../src/runner/app-client.js';
import { APP_TOKEN, tempDir } from '../../../../test/kit/index.js';

const hello = {
  runner: 'r-1',
  machine: 'box',
  version: 'test',
  capacity: { running: 0, max: 1 },
  repositories: ['repo'],
  held: [],
};

describe('the app certificate', () => {
  it('is a self-signed server certificate Node reads, naming every host and address given', () => {
    const { cert, key } = makeSelfSigned([
      '10.213.4.1',
      'app.example',
      '::1',
      'fe80::1:2',
      '::ffff:10.0.0.9',
    ]);
    const parsed = new X509Certificate(cert);
    expect(parsed.verify(parsed.publicKey)).toBe(true);
    expect(parsed.checkIP('10.213.4.1')).toBe('10.213.4.1');
    expect(parsed.checkIP('::1')).toBeDefined();
    expect(parsed.checkIP('fe80::1:2')).toBeDefined();
    expect(parsed.checkHost('app.example')).toBe('app.example');
    expect(parsed.checkIP('10.213.4.2')).toBeUndefined();
    expect(parsed.ca).toBe(false);
    expect(key).toMatch(/BEGIN PRIVATE KEY/);
    expect(fingerprintOf(cert)).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('is made once and kept (mode 0600), and made again only for an address it does not name', () => {
    const dir = tempDir('kairoku-tls-');
    const first = selfSignedIdentity(dir, ['127.0.0.1']);
    expect(first.made).toBe(true);
    expect(statSync(join(dir, 'app.key')).mode & 0o777).toBe(0o600);
    const again = selfSignedIdentity(dir, ['127.0.0.1']);
    expect(again.made).toBe(false);
    expect(again.fingerprint).toBe(first.fingerprint);
    const moved = selfSignedIdentity(dir, ['10.213.9.1']);
    expect(moved.made).toBe(true);
    expect(moved.why).toMatch(/does not name 10\.213\.9\.1/);
    expect(moved.fingerprint).not.toBe(first.fingerprint);
  });

  it('reads a fingerprint as operators type it', () => {
    const canonical = fingerprintOf(makeSelfSigned(['127.0.0.1']).cert);
    expect(normalizeFingerprint(canonical.toLowerCase())).toBe(canonical);
    expect(normalizeFingerprint(canonical.replace(/:/g, ''))).toBe(canonical);
    expect(normalizeFingerprint(`SHA256:${canonical}`)).toBe(canonical);
    expect(normalizeFingerprint('AB:CD')).toBeUndefined();
  });
});

describe('the app over TLS', () => {
  it('serves the routes and the report endpoint on one TLS listener; a pinned runner talks to it, a wrong pin is refused before the credential is sent', async () => {
    const tls = makeSelfSigned(['127.0.0.1']);
    const faults: string[] = [];
    const backend = new KairokuBackend({
      appToken: APP_TOKEN,
      target: { repository: 'repo', baseBranch: 'main' },
      onFault: (text) => faults.push(text),
    });
    const url = await backend.listen('127.0.0.1', 0, { tls, requireTlsOffLoopback: true });
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(backend.reportEndpoint!.url).toBe(`${url}/mcp`);

      const pinned = new AppClient(url, APP_TOKEN, 10_000, { fingerprint: fingerprintOf(tls.cert) });
      expect((await pinned.post('heartbeat', hello)).intervalMs).toBeGreaterThan(0);
      pinned.close();

      const other = fingerprintOf(makeSelfSigned(['127.0.0.1']).cert);
      const wrong = new AppClient(url, APP_TOKEN, 10_000, { fingerprint: other });
      await expect(wrong.post('heartbeat', { ...hello, runner: 'r-2' })).rejects.toThrow(AppUntrusted);
      await expect(wrong.post('heartbeat', { ...hello, runner: 'r-2' })).rejects.toThrow(/not the pinned/);
      // Nothing reached the routes: no runner r-2, no refused credential.
      expect(backend.runnerViews().map((r) => r.id)).toEqual(['r-1']);
      expect(faults).toEqual([]);

      // Without a pin or a CA, the self-signed certificate is not trusted.
      const unpinned = new AppClient(url, APP_TOKEN);
      await expect(unpinned.post('heartbeat', hello)).rejects.toThrow(AppUntrusted);
      unpinned.close();

      // The report endpoint rides the same listener: a revoked or unknown token is refused there.
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${url}/mcp`,
          { method: 'POST', ca: tls.cert, headers: { authorization: 'Bearer nope' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      expect(status).toBe(401);
    } finally {
      await backend.close();
    }
  });

  it('refuses a routable address without TLS, and the wildcard unless named and over TLS', async () => {
    const lookup = (address: string) => async () => ({ address, family: 4 });
    const backend = new KairokuBackend({
      appToken: APP_TOKEN,
      target: { repository: 'repo', baseBranch: 'main' },
    });
    const { startKairokuServer } = await import('../../../src/backends/kairoku/server.js');
    await expect(
      startKairokuServer(backend, {
        host: 'app.example',
        port: 0,
        appToken: APP_TOKEN,
        requireTlsOffLoopback: true,
        lookup: lookup('10.213.4.1'),
      }),
    ).rejects.toThrow(/serve it over TLS/);
    const tls = makeSelfSigned(['127.0.0.1']);
    await expect(
      startKairokuServer(backend, {
        host: '0',
        port: 0,
        appToken: APP_TOKEN,
        tls,
        requireTlsOffLoopback: true,
        allowWildcard: true,
        lookup: lookup('0.0.0.0'),
      }),
    ).rejects.toThrow(/wildcard/);
    await expect(
      startKairokuServer(backend, {
        host: '0.0.0.0',
        port: 0,
        appToken: APP_TOKEN,
        requireTlsOffLoopback: true,
        allowWildcard: true,
      }),
    ).rejects.toThrow(/wildcard/);
  });

  it('a runner refuses a plain-HTTP app that is not loopback, judged by what its host resolves to', async () => {
    const client = new AppClient('http://app.example:7421', APP_TOKEN, 10_000, {
      lookup: async () => ({ address: '10.213.4.1' }),
    });
    await expect(client.post('heartbeat', hello)).rejects.toThrow(/not loopback/);
    await expect(client.post('heartbeat', hello)).rejects.toThrow(AppUntrusted);
  });
});

describe('DER integers in the certificate', () => {
  it('are minimal: no leading zero unless the high bit needs one (OpenSSL refuses "illegal padding")', () => {
    const hex = (bytes: number[]) => derInteger(Buffer.from(bytes)).toString('hex');
    expect(hex([0x00, 0x12, 0x34])).toBe('02021234'); // a random serial that began with 0x00
    expect(hex([0x00, 0x00, 0x05])).toBe('020105');
    expect(hex([0x80, 0x01])).toBe('0203008001'); // positive: a zero before a high bit
    expect(hex([0x00, 0x80])).toBe('02020080'); // that zero kept
    expect(hex([0x00])).toBe('020100');
    expect(hex([0x02])).toBe('020102');
  });
});
