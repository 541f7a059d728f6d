import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** What binding an address exposes: this machine only, every interface, or one interface others can reach. */
export type AddressKind = 'loopback' | 'wildcard' | 'other';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const WILDCARD = new BlockList();
WILDCARD.addAddress('0.0.0.0', 'ipv4');
WILDCARD.addAddress('::', 'ipv6');

/**
 * The kind of an IP address as `dns.lookup` returns it. IPv4-mapped IPv6 addresses count as their IPv4
 * address (`::ffff:127.0.0.1` is loopback, `::ffff:0.0.0.0` the wildcard); a zone (`::1%lo`) does not
 * change the address. Not an IP address: `other`.
 */
export function addressKind(ip: string): AddressKind {
  const address = ip.replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 0) return 'other';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (WILDCARD.check(address, type)) return 'wildcard';
  if (LOOPBACK.check(address, type)) return 'loopback';
  return 'other';
}

/**
 * The kind of a host without asking a resolver: an IP literal is judged by `addressKind`, the empty
 * host (Node binds every interface) is the wildcard, `localhost` is loopback; any other name, and the
 * numeric forms only a resolver reads (`0`, `0x0`, `127.1`), is `other`. For allow-lists that must
 * decide at once; `resolveBindAddress` says what a listener would really bind.
 */
export function literalKind(host: string): AddressKind {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return 'wildcard';
  if (bare.toLowerCase() === 'localhost') return 'loopback';
  return addressKind(bare);
}

export type Lookup = (host: string) => Promise<{ address: string; family: number }>;

/** `dns.lookup` with Node's defaults: exactly what `server.listen(port, host)` calls before it binds. */
const systemLookup: Lookup = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, (error, address, family) => (error ? reject(error) : resolve({ address, family }))),
  );

export interface BindCheck {
  /** what listens, for messages: `the report endpoint`, `--listen` */
  what: string;
  /** allow an address other machines can reach (never the wildcard); otherwise loopback only */
  allowNonLoopback?: boolean;
  /**
   * allow the wildcard when it is spelled as itself, `0.0.0.0` or `::` (every interface asked for by
   * name); a name or a numeric form that merely resolves to it (`0`, `0x0`) is still refused
   */
  allowWildcard?: boolean;
  /** how to allow a non-loopback address, for the refusal (`pass --allow-remote-runners`) */
  howToAllow?: string;
  /** the resolver (tests); default `dns.lookup` as `server.listen` uses it */
  lookup?: Lookup;
}

/**
 * The address a listener may bind, judged by what it resolves to, not by how it is spelled: `0`,
 * `0x0`, `00.0.0.0`, `0.0`, `::`, `[::]`, `::ffff:0.0.0.0` and a name that resolves to one of them
 * are all the wildcard, and are refused (every interface, RF-006); `127.1`, `localhost` and `[::1]`
 * are loopback. Anything else (another interface, a name that resolves to one) is refused unless
 * `allowNonLoopback`. The host is resolved once, here, with Node's own `dns.lookup`, and the
 * address it resolved to is what the caller binds — a name is never looked up a second time, so it
 * cannot resolve to something else between the check and the bind.
 */
export async function resolveBindAddress(host: string, check: BindCheck): Promise<string> {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  const shown = JSON.stringify(host);
  if (bare === '')
    throw new Error(`${check.what}: an empty host binds every interface; name one, such as 127.0.0.1`);
  let address: string;
  try {
    ({ address } = await (check.lookup ?? systemLookup)(bare));
  } catch (error) {
    throw new Error(`${check.what}: cannot resolve the host ${shown}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const kind = addressKind(address);
  const resolved = address === bare ? '' : ` (it resolves to ${address})`;
  if (
    kind === 'wildcard' &&
    check.allowWildcard &&
    check.allowNonLoopback &&
    (bare === '0.0.0.0' || bare === '::')
  )
    return address;
  if (kind === 'wildcard')
    throw new Error(
      `${check.what}: refusing the wildcard address ${shown}${resolved}: it binds every interface; name one, such as 127.0.0.1`,
    );
  if (kind === 'other' && !check.allowNonLoopback)
    throw new Error(
      `${check.what} binds loopback only: ${shown}${resolved} is not a loopback address (127.0.0.1 or ::1)${check.howToAllow ? `; to let other machines reach it, ${check.howToAllow}` : ''}`,
    );
  return address;
}
