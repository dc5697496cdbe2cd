/**
 * The machine's reference: bare `node:http` answering a small JSON body (an introspection-sized
 * answer) to any request, the ceiling of any Node HTTP service here. PORT=… node bench/dist/servers/bare.js
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ active: true, sub: 'user-123', scope: 'read write', client_id: 'api' });
const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };

createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, headers).end(body));
}).listen(Number(process.env.PORT), '127.0.0.1');
