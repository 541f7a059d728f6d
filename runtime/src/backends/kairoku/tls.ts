import { X509Certificate, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { writeFileAtomic } from '../../store/atomic-write.js';

/**
 * The app's TLS identity: a certificate and key (PEM). `serve --tls-self-signed` makes one once and
 * keeps it in the home; runners pin its SHA-256 fingerprint (`--app-fingerprint`) or trust a CA file.
 *
 * The certificate is written here with node:crypto alone (an ECDSA P-256 key, the X.509 structure in
 * DER): no dependency, nothing fetched at run time, and it bundles into the CLI's single file. Node's
 * own parser (`X509Certificate`) and a real TLS handshake check what it writes (runtime/test).
 */
export interface TlsIdentity {
  cert: string;
  key: string;
}

/** How long a self-signed certificate is good for. */
const VALID_DAYS = 825;

/** `AB:CD:…`, 32 bytes, upper case: the form Node's `fingerprint256` has and `serve` prints. */
export function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/**
 * A fingerprint as an operator may type it — with or without colons, any case, or `SHA256:` before
 * it — in the canonical form; undefined when it is not 32 bytes of hex.
 */
export function normalizeFingerprint(text: string): string | undefined {
  const hex = text
    .trim()
    .replace(/^sha-?256:/i, '')
    .replace(/[:\s]/g, '')
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) return undefined;
  return hex.match(/../g)!.join(':');
}

/** The PEM of a DER certificate (what a TLS peer presents). */
export function pemOf(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** A new self-signed server certificate for `names` (host names and IP addresses). */
export function makeSelfSigned(names: readonly string[], now = new Date()): TlsIdentity {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // positive
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from('kairoku-playbook app')))));
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + VALID_DAYS * 24 * 60 * 60 * 1000);
  const alternatives = uniqueNames(names).map((n) =>
    isIP(n) ? tlv(0x87, ipBytes(n)) : tlv(0x82, Buffer.from(n, 'ascii')),
  );
  const extensions = seq(
    extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
    extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, seq(...alternatives)), // subjectAltName
  );
  const tbs = seq(
    tlv(0xa0, derInteger(Buffer.from([2]))), // v3
    derInteger(serial),
    ecdsaSha256,
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { cert: pemOf(der), key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * The self-signed identity kept in `dir` (`app.crt`, `app.key`, mode 0600): made on first use, and
 * made again only when the kept one has expired (or expires within a day) or does not name every one
 * of `names` — a new fingerprint, which `made` says, so the caller can tell the operator to re-pin.
 */
export function selfSignedIdentity(
  dir: string,
  names: readonly string[],
  now = new Date(),
): TlsIdentity & { made: boolean; fingerprint: string; certFile: string; why?: string } {
  const certFile = join(dir, 'app.crt');
  const keyFile = join(dir, 'app.key');
  let why = 'none was kept';
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    const key = readFileSync(keyFile, 'utf8');
    const parsed = new X509Certificate(cert);
    const missing = uniqueNames(names).filter((n) => !covers(parsed, n));
    if (new Date(parsed.validTo).getTime() < now.getTime() + 24 * 60 * 60 * 1000)
      why = 'the kept one expires';
    else if (missing.length) why = `the kept one does not name ${missing.join(', ')}`;
    else return { cert, key, made: false, fingerprint: parsed.fingerprint256, certFile };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const made = makeSelfSigned(names, now);
  writeFileAtomic(keyFile, made.key);
  writeFileAtomic(certFile, made.cert);
  return { ...made, made: true, fingerprint: fingerprintOf(made.cert), certFile, why };
}

/** Whether a certificate names a host or an IP address (its subjectAltName). */
export function covers(cert: X509Certificate, name: string): boolean {
  return (isIP(name) ? cert.checkIP(name) : cert.checkHost(name)) !== undefined;
}

function uniqueNames(names: readonly string[]): string[] {
  return [...new Set(names.map((n) => n.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '')).filter(Boolean))];
}

// ---- DER ------------------------------------------------------------------------------------------

function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, value]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A DER INTEGER of the unsigned big-endian `bytes` (exported for its test). */
export function derInteger(bytes: Buffer): Buffer {
  // DER's minimal form: no leading zero byte unless the next one's high bit needs it (a random serial
  // starting 0x00 was 'illegal padding' to OpenSSL), and one added where the high bit would make it negative
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && !(bytes[start + 1]! & 0x80)) start++;
  const minimal = bytes.subarray(start);
  return tlv(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128))
      base128.unshift((rest & 0x7f) | 0x80);
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280, section 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand `::`, then 8 groups of 16 bits (an embedded IPv4 tail is read as two groups).
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g: string, i: number) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}
