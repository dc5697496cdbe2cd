/**
 * Mounts every operation of the registry as a route, each one the same pipeline: authenticate
 * → requireScope → read the body → validate params, query and body (every problem
 * at once) → handler → write the answer. Paths the registry knows with another method answer 405.
 */
import { preflight } from './cors.js';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { principalOf } from '../auth/principal.js';
import { needsScope, requireScope, viewOf } from '../auth/require-scope.js';
import type { Challenges } from '../auth/challenges.js';
import { InvalidRequestError, MethodNotAllowedError, type Problem } from '../lib/errors.js';
import { pathId } from '../lib/ids.js';
import { scopeOf, type AreaModule, type Operation, type Services } from '../lib/operation.js';
import { collect } from '../lib/validation.js';
import { jsonBody, plainRawBody } from './body.js';

/** `/api/v1/courses/{id}` → `/api/v1/courses/:id`. */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

function validate(op: Operation): RequestHandler {
  const takesId = op.path.includes('{id}');
  // Most reads come without a query: its parse (the defaults) is the same every time, so done once.
  const noQuery = op.query?.safeParse({});
  const parseQuery = (given: object, problems: Problem[]): Record<string, unknown> => {
    if (!op.query) return {};
    if (noQuery?.success && Object.keys(given).length === 0) return { ...noQuery.data };
    return collect(op.query, { ...given }, 'query', problems);
  };
  return function validateRequest(req: Request, res: Response, next: NextFunction) {
    // A malformed id names nothing: 404 before any other problem, like an unknown id.
    if (takesId) pathId(req.params.id, `item in ${op.area.replace(/_/g, ' ')}`);
    const problems: Problem[] = [];
    const query = parseQuery(req.query, problems);
    if (!op.query && Object.keys(req.query).length) {
      problems.push({ path: 'query', message: 'this operation takes no query parameters' });
    }
    const body = op.body?.kind === 'json' ? collect(op.body.schema.schema, req.body, 'body', problems) : {};
    if (problems.length) return next(new InvalidRequestError(problems));
    res.locals.query = query;
    res.locals.body = body;
    next();
  };
}

function run(op: Operation, services: Services): RequestHandler {
  return async function handle(req: Request, res: Response) {
    const view = viewOf(res);
    const result = await op.handle({
      req,
      res,
      params: req.params as Record<string, string>,
      query: res.locals.query as Record<string, unknown>,
      body: res.locals.body as Record<string, unknown>,
      principal: principalOf(res),
      view,
      services,
    });
    res.set('Vary', 'Authorization');
    if (view === 'public') res.set('Cache-Control', 'public, max-age=60');
    else res.set('Cache-Control', 'no-store');
    if (result.headers) res.set(result.headers);
    res.status(result.status);
    if (result.status === 204 || result.body === undefined) res.end();
    else res.json(result.body);
  };
}

/** Builds the router of all operations. */
export function operationsRouter(
  registry: readonly AreaModule[],
  deps: {
    services: Services;
    authenticate: RequestHandler;
    challenges: Challenges;
    /** Reports the scope of each operation served with a token (auth/scope-use.ts). */
    noteUse?: (scope: string) => RequestHandler;
  },
): Router {
  const router = Router({ strict: false });
  const methods = new Map<string, Set<string>>();
  const bodyLimit = deps.services.config.BODY_LIMIT;
  for (const area of registry) {
    for (const op of area.operations) {
      const path = expressPath(op.path);
      const scope = scopeOf(op);
      const steps: RequestHandler[] = [
        needsScope(scope),
        deps.authenticate,
        requireScope(scope, op.response.public !== undefined, deps.challenges),
      ];
      if (deps.noteUse) steps.push(deps.noteUse(scope));
      if (op.body?.kind === 'json') steps.push(jsonBody(bodyLimit));
      if (op.body?.kind === 'raw') steps.push(plainRawBody);
      steps.push(validate(op), run(op, deps.services));
      router[op.method](path, ...steps);
      methods.set(path, (methods.get(path) ?? new Set()).add(op.method.toUpperCase()));
    }
  }
  for (const [path, allowed] of methods) {
    const list = [...allowed];
    if (list.includes('GET')) list.push('HEAD');
    router.options(path, preflight(list));
    router.all(path, (_req, _res, next) => next(new MethodNotAllowedError(list)));
  }
  return router;
}
