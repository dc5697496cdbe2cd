/**
 * The documents for clients, all generated from the configuration and the registry so they cannot
 * drift from the code: the protected-resource metadata, `/openapi.json` and `/auth.md`. Each is built
 * once per app and served from memory.
 */
import { DISCOVERY_PATHS } from '@school/shared';
import { preflight } from './cors.js';
import { PUBLIC_DOCUMENT_CACHE_CONTROL } from '@school/shared';
import { Router } from 'express';
import type { ApiConfig } from '../config.js';
import { authMarkdown } from '../docs/auth-md.js';
import { MethodNotAllowedError } from '../lib/errors.js';
import { buildOpenApi } from '../lib/openapi.js';
import type { AreaModule } from '../lib/operation.js';
import { protectedResourceMetadata } from './metadata.js';

/** The three document routes. */
export function docsRouter(config: ApiConfig, registry: readonly AreaModule[]): Router {
  const router = Router();
  const prm = JSON.stringify(protectedResourceMetadata(config));
  const openapi = JSON.stringify(buildOpenApi(config, registry));
  const markdown = authMarkdown(config, registry);
  const cache = PUBLIC_DOCUMENT_CACHE_CONTROL;
  router.get(DISCOVERY_PATHS.protectedResource, (_req, res) => {
    res.type('application/json').set('Cache-Control', cache).send(prm);
  });
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').set('Cache-Control', cache).send(openapi);
  });
  router.get('/auth.md', (_req, res) => {
    res.type('text/markdown; charset=utf-8').set('Cache-Control', cache).send(markdown);
  });
  const paths = [DISCOVERY_PATHS.protectedResource, '/openapi.json', '/auth.md'];
  router.options(paths, preflight(['GET', 'HEAD']));
  router.all(paths, (_req, _res, next) => next(new MethodNotAllowedError(['GET', 'HEAD'])));
  return router;
}
