/**
 * RS1's reference: a bare Express 5 app answering, on one route, the same JSON the resource API
 * answers there (measures/rs1-read.ts writes BODY_FILE from the API's own answer and checks that this
 * server sends the same bytes), through `res.json` as the API does, without any token check,
 * middleware or database.
 *
 *   BODY_FILE=<json file> ROUTE=/api/v1/courses node bench/dist/servers/express-bare.js PORT
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const port = Number(process.argv[2]);
const route = process.env.ROUTE ?? '/api/v1/courses';
const body: unknown = process.env.BODY_FILE ? JSON.parse(readFileSync(process.env.BODY_FILE, 'utf8')) : {};

const app = express();
app.set('etag', false);
app.disable('x-powered-by');
app.get(route, (_req, res) => {
  res.json(body);
});
app.listen(port, '127.0.0.1');
