/**
 * The RFC 7662 introspection answer as both services understand it: oidc-provider writes it, the
 * resource API parses it with this schema and documents it in `/openapi.json` with the same one.
 * Members beyond these are kept but not relied on.
 */
import { z } from 'zod';

/** An introspection answer. */
export const introspectionAnswerSchema = z.looseObject({
  active: z.boolean(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  sub: z.string().optional(),
  aud: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Present when the token is bound to the API (resource parameter)'),
  iss: z.string().optional(),
  exp: z.number().int().optional(),
  iat: z.number().int().optional(),
  token_type: z.string().optional(),
});

/** One introspection answer. */
export type IntrospectionAnswer = z.output<typeof introspectionAnswerSchema>;
