/**
 * oidc-provider's in-memory adapter (lib/adapters/memory_adapter.js), the one it uses when given none.
 * The package has no `exports` map, so the module is importable, but it ships no declarations for it.
 */
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { Adapter } from 'oidc-provider';

  /** A factory of adapters sharing one fresh store (an LRU of at most 1000 entries). */
  export function createMemoryAdapter(clockTolerance?: number): (model: string) => Adapter;
}
