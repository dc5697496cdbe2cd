/**
 * How long clients and caches may keep the public documents both services publish (discovery,
 * protected-resource metadata, OpenAPI, auth.md): five minutes. They change only with a deployment,
 * are built from BASE_URL alone (never from request headers, so a shared cache cannot be poisoned
 * through Host), and a short bound lets a changed deployment reach every client within minutes.
 */
export const PUBLIC_DOCUMENT_CACHE_CONTROL = 'public, max-age=300';
