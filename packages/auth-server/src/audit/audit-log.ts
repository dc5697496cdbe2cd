/**
 * The security audit log: one structured JSON line per security event (client registered, consent
 * granted or denied, tokens issued, refresh-token reuse, revocations, failed logins, rate-limit hits)
 * on stdout, and the same event stored in MongoDB (`audit_events`) for operators to query, expiring
 * after the retention period through a TTL index.
 *
 * Writing never blocks or fails a request: a storage error is logged and the event is still on
 * stdout. Events carry ids, never secrets (no tokens, codes, passwords or client secrets).
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Logger } from '../logger.js';

/** The kinds of security event. */
export const AUDIT_EVENT_TYPES = [
  'client_registered',
  'consent_granted',
  'consent_denied',
  'login_succeeded',
  'login_failed',
  'login_locked',
  'tokens_issued',
  'refresh_token_reuse',
  'code_replay',
  'token_revoked',
  'grant_revoked',
  'rate_limited',
] as const;

/** One kind of security event. */
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** An audit event as stored and queried. */
export interface AuditEvent {
  _id: string;
  type: AuditEventType;
  at: Date;
  requestId?: string;
  ip?: string;
  clientId?: string;
  accountId?: string;
  /** Event-specific details (ids, scopes, grant type, route), never secrets. */
  details?: Record<string, unknown>;
}

/** What to filter the stored events by. */
export interface AuditQuery {
  type?: AuditEventType;
  clientId?: string;
  accountId?: string;
  since?: Date;
  until?: Date;
  limit?: number;
}

function model(connection: Connection): Model<AuditEvent> {
  if (connection.models.AuditEvent) return connection.models.AuditEvent as unknown as Model<AuditEvent>;
  const schema = new Schema<AuditEvent>(
    {
      _id: { type: String, required: true },
      type: { type: String, required: true, enum: AUDIT_EVENT_TYPES },
      at: { type: Date, required: true },
      requestId: String,
      ip: String,
      clientId: String,
      accountId: String,
      details: Schema.Types.Mixed,
    },
    { collection: 'audit_events', versionKey: false },
  );
  schema.index({ type: 1, at: -1 });
  schema.index({ at: -1 });
  return connection.model('AuditEvent', schema) as unknown as Model<AuditEvent>;
}

/** Records and queries security events. */
export class AuditLog {
  private readonly events: Model<AuditEvent>;
  private readonly retentionSeconds: number;
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    connection: Connection,
    private readonly logger: Logger,
    retentionDays: number,
  ) {
    this.events = model(connection);
    this.retentionSeconds = retentionDays * 86400;
  }

  /**
   * Creates the indexes. Retention is a TTL index where the server has them (MongoDB); where it does
   * not (FerretDB), an hourly purge of older events does the same job.
   */
  async init(): Promise<void> {
    await this.events.createIndexes();
    try {
      await this.events.collection.createIndex(
        { at: 1 },
        { name: 'retention', expireAfterSeconds: this.retentionSeconds },
      );
    } catch (err) {
      this.logger.info(
        { reason: (err as Error).message },
        'no TTL index support: purging expired audit events hourly',
      );
      await this.purge();
      this.purgeTimer = setInterval(() => void this.purge(), 3600_000);
      this.purgeTimer.unref();
    }
  }

  /** Deletes events older than the retention period. */
  async purge(): Promise<number> {
    const cutoff = new Date(Date.now() - this.retentionSeconds * 1000);
    const { deletedCount } = await this.events
      .deleteMany({ at: { $lt: cutoff } })
      .catch(() => ({ deletedCount: 0 }));
    return deletedCount;
  }

  /** Stops the purge timer. */
  close(): void {
    clearInterval(this.purgeTimer);
  }

  /** Records an event; returns once it is stored (callers need not wait). */
  record(type: AuditEventType, fields: Omit<AuditEvent, '_id' | 'type' | 'at'> = {}): Promise<void> {
    const event: AuditEvent = { _id: randomUUID(), type, at: new Date(), ...fields };
    this.logger.info({ audit: true, ...event, at: event.at.toISOString() }, `audit ${type}`);
    return this.events.create(event).then(
      () => undefined,
      (err: unknown) => this.logger.warn({ err: (err as Error).message, type }, 'audit event not stored'),
    );
  }

  /** The newest events matching `q` (at most 1000). */
  async query(q: AuditQuery = {}): Promise<AuditEvent[]> {
    const filter: Record<string, unknown> = {};
    if (q.type) filter.type = q.type;
    if (q.clientId) filter.clientId = q.clientId;
    if (q.accountId) filter.accountId = q.accountId;
    if (q.since || q.until)
      filter.at = { ...(q.since ? { $gte: q.since } : {}), ...(q.until ? { $lte: q.until } : {}) };
    return this.events
      .find(filter)
      .sort({ at: -1 })
      .limit(Math.min(q.limit ?? 100, 1000))
      .lean<AuditEvent[]>();
  }
}
