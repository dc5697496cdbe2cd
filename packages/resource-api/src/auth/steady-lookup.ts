/**
 * Name resolution for the API's connections to the auth server that rides out a stalled resolver.
 *
 * Each new connection asks the system resolver afresh, so a restarted container's new address is
 * used at once. When the resolver does not answer within `patienceMs`, or fails, the last answer it
 * gave for that name is used instead: a container network's DNS server can stop answering for tens
 * of seconds while containers start and stop (podman's aardvark-dns 1.4 did here for up to 45 s), and
 * a cluster's DNS can drop a query; a local resolver that works answers in a millisecond. Without an
 * earlier answer the caller waits for the resolver, and its error is the caller's. One lookup per
 * name is in flight at a time; callers arriving meanwhile share it, so a stalled resolver never ties
 * up more than one of libuv's threads per name.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

/** Resolves a name to every address it has. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo, as `net.connect` uses by default). */
const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The error `dns.lookup` gives for a name without (such) addresses. */
const notFound = (message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code: 'ENOTFOUND' });

/** The shape of `net.connect`'s `lookup` option (undici passes it through its `connect` options). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export interface SteadyLookupOptions {
  /** Default: the system resolver. Tests inject their own (no test resolves through the machine's DNS). */
  resolve?: Resolve;
  /** How long a lookup may take before the last answer is used, ms. */
  patienceMs?: number;
}

/** Builds a `lookup` for `net.connect` with the behaviour described above. */
export function steadyLookup({
  resolve = systemResolve,
  patienceMs = 250,
}: SteadyLookupOptions = {}): LookupFunction {
  const lastAnswer = new Map<string, LookupAddress[]>();
  const inFlight = new Map<string, Promise<LookupAddress[]>>();

  const ask = (hostname: string): Promise<LookupAddress[]> => {
    let pending = inFlight.get(hostname);
    if (!pending) {
      pending = resolve(hostname)
        .then((addresses) => {
          if (addresses.length === 0) throw notFound(`no address for ${hostname}`);
          lastAnswer.set(hostname, addresses);
          return addresses;
        })
        .finally(() => inFlight.delete(hostname));
      inFlight.set(hostname, pending);
    }
    return pending;
  };

  const answer = async (hostname: string): Promise<LookupAddress[]> => {
    const fresh = ask(hostname);
    const previous = lastAnswer.get(hostname);
    if (!previous) return fresh;
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<LookupAddress[]>((done) => {
      timer = setTimeout(() => done(previous), patienceMs);
    });
    try {
      return await Promise.race([fresh.catch(() => previous), patience]);
    } finally {
      clearTimeout(timer);
    }
  };

  return (hostname, options, callback) => {
    answer(hostname).then(
      (all) => {
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) {
          return callback(notFound(`no IPv${options.family} address for ${hostname}`), options.all ? [] : '');
        }
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : ''),
    );
  };
}
