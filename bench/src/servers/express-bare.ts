/**
 * RS1's reference: bare Express 5 answering `GET /api/v1/courses` by the API's own operation, with
 * nothing around it. Started with the resource API's environment and PORT.
 */
import express from 'express';
import mongoose from 'mongoose';
import { ANONYMOUS } from '@school/resource-api/dist/auth/principal.js';
import { REGISTRY } from '@school/resource-api/dist/areas/index.js';
import { loadConfig } from '@school/resource-api/dist/config.js';
import { createLogger } from '@school/resource-api/dist/logger.js';

const route = '/api/v1/courses';
const op = REGISTRY.flatMap((a) => a.operations).find((o) => o.method === 'get' && o.path === route);
if (!op) throw new Error(`no GET operation at ${route}`);

const config = loadConfig();
const connection = await mongoose
  .createConnection(config.MONGODB_URI, { serverSelectionTimeoutMS: 5000, autoIndex: false })
  .asPromise();
const services = { config, connection, logger: createLogger('warn', 'express-bare') };
const query = op.query?.parse({}) ?? {};

const app = express();
app.set('etag', false);
app.disable('x-powered-by');
app.get(route, async (req, res) => {
  const params = {};
  const result = await op.handle({
    req,
    res,
    params,
    query,
    body: {},
    principal: ANONYMOUS,
    view: 'full',
    services,
  });
  res.json(result.body);
});
app.listen(Number(process.env.PORT), '127.0.0.1');
