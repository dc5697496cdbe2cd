/**
 * Requests sent from a chosen loopback source address (Linux routes all of 127.0.0.0/8 to `lo`), so
 * a suite can act as several clients that per-address limits must tell apart. Node's `http` is used
 * because it honours `localAddress`; undici's fetch does not.
 */
import { request } from 'node:http';

/** An answer: status, headers, the body as text and, when it parses, as JSON. */
export interface AnswerFrom {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Record<string, string>;
}

/** POSTs `form` (urlencoded) to `origin` + `path` from `localAddress`, with `headers` added. */
export function postFormFrom(
  origin: string,
  localAddress: string,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<AnswerFrom> {
  const target = new URL(origin);
  const payload = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        localAddress,
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, string> = {};
          try {
            body = JSON.parse(text) as Record<string, string>;
          } catch {
            body = {};
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
