/**
 * The app of one row of a list page (Connected apps, the confirmation pages), loaded so that it can
 * only fail for its own row. A client that cannot be loaded just now (a metadata document whose host
 * is gone past the stale window or that policy no longer allows, a stored record that does not read)
 * is shown with what is known, its client id, and keeps its Revoke and Delete: one client's record
 * never takes down a person's page. Only a storage outage fails the page (503, as everywhere).
 */
import { isStorageOutage } from '@school/shared';
import type { Provider } from 'oidc-provider';
import { clientKind } from '../clients/client-kind.js';
import { StorageUnavailable } from '../provider/storage-outage.js';
import type { AppIdentity } from '../pages/page-parts.js';

/** A client as oidc-provider loads it. */
type LoadedClient = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/** What a row finds: the client, nothing (it is gone), or a client that cannot be loaded now. */
export type RowClient =
  { status: 'found'; client: LoadedClient } | { status: 'gone' } | { status: 'unavailable' };

/** Loads `clientId` for one row (see the module comment). */
export async function clientForRow(provider: Provider, clientId: string): Promise<RowClient> {
  try {
    const client = await provider.Client.find(clientId);
    return client ? { status: 'found', client } : { status: 'gone' };
  } catch (err) {
    if (err instanceof StorageUnavailable || isStorageOutage(err)) throw err;
    return { status: 'unavailable' };
  }
}

/** The app of a client that cannot be loaded: its id, the kind its id tells, and nothing more. */
export function unavailableApp(clientId: string): AppIdentity {
  return { clientId, kind: clientKind({ clientId, metadata: () => ({}) }), unavailable: true };
}
