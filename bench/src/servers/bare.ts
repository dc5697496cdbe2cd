/**
 * The reference server: bare `node:http` answering a small JSON body (an introspection-sized
 * answer) to any request. The ceiling of any Node HTTP service on this machine; every "ratio" of
 * scripts/bench divides by what this server does in the same run.
 *
 *   node bench/dist/servers/bare.js PORT
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ active: true, sub: 'user-123', scope: 'read write', client_id: 'api' });
const length = String(Buffer.byteLength(body));
const port = Number(process.argv[2]);

createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
    res.end(body);
  });
}).listen(port, '127.0.0.1');
