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
  token_type: z.string().optional().describe('Bearer, or DPoP for a token bound to a key (cnf.jkt)'),
  cnf: z
    .looseObject({ jkt: z.string().optional() })
    .optional()
    .describe('The confirmation of a sender-constrained token: jkt, the SHA-256 thumbprint of its DPoP key'),
});

/** One introspection answer. */
export type IntrospectionAnswer = z.output<typeof introspectionAnswerSchema>;
