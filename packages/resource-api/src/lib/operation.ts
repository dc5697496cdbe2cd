/**
 * What an API operation is, as data. An area file produces a list of these; the one registry
 * (`areas/index.ts`) collects them, and from it alone the app mounts routes and scope checks
 * (`http/operations-router.ts`), the OpenAPI document is generated (`lib/openapi.ts`), docs/areas.md's
 * table is printed (`docs/areas-table.ts`) and the contract test tries every operation.
 */
import type { Request, Response } from 'express';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { Access, AreaName, NamedSchema } from '@school/shared';
import type { Principal, View } from './caller.js';
import type { ApiConfig } from '../config.js';
import type { Logger } from '../logger.js';

export type { NamedSchema };

/** What handlers can reach. */
export interface Services {
  config: ApiConfig;
  connection: Connection;
  logger: Logger;
}

/** Everything a handler gets, already authenticated, authorized and validated. */
export interface OperationContext {
  req: Request;
  res: Response;
  /** Path parameters (an `id` is already known to be well formed). */
  params: Record<string, string>;
  /** The query, parsed by the operation's `query` schema. */
  query: Record<string, unknown>;
  /** The JSON body, parsed by the operation's body schema (raw-body operations read `req`). */
  body: Record<string, unknown>;
  principal: Principal;
  /** `public` for anonymous callers of operations with a public view, else `full`. */
  view: View;
  services: Services;
}

/** A handler's answer; the pipeline writes it. */
export interface OperationResult {
  status: 200 | 201 | 204;
  body?: unknown;
  headers?: Record<string, string>;
}

/** How an operation takes its request body. */
export type BodySpec = { kind: 'json'; schema: NamedSchema } | { kind: 'raw'; description: string };

/** One operation of one area. */
export interface Operation {
  area: AreaName;
  /** Short verb, unique within the area: list, get, create, update, delete, upload, ... */
  action: string;
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template, e.g. `/api/v1/courses/{id}`. */
  path: string;
  access: Access;
  summary: string;
  description?: string;
  /** Query parameters (a strict zod object: unknown parameters are refused). */
  query?: z.ZodObject;
  body?: BodySpec;
  response: {
    status: 200 | 201 | 204;
    description: string;
    /** The full view (token with the scope). */
    full?: NamedSchema;
    /** The public view: present exactly when anonymous callers are served. */
    public?: NamedSchema;
  };
  /** Statuses beyond the auth answers (401/403/503) this operation can give, for the docs. */
  errors: number[];
  handle(ctx: OperationContext): Promise<OperationResult>;
  /**
   * A request that succeeds with the right scope against the seeded school: used by the contract test
   * and as the OpenAPI example. `{id}` is filled in by the caller.
   */
  example?: { query?: Record<string, string>; body?: unknown; raw?: { contentType: string; data: string } };
}

/** One area: its operations and how to prepare its storage. */
export interface AreaModule {
  name: AreaName;
  /** One paragraph for the docs. */
  description: string;
  operations: Operation[];
  /** Creates the area's indexes (unique slugs, codes, emails). */
  init?(connection: Connection): Promise<void>;
}

/** The scope an operation needs. */
export function scopeOf(op: Pick<Operation, 'area' | 'access'>): string {
  return `${op.area}:${op.access}`;
}
