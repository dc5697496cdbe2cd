/**
 * The security audit log: one structured JSON line per security event (client registered or
 * deleted, consent granted or denied, tokens issued, refresh-token reuse, revocations, failed logins,
 * an account crossing its failure count (a suspected attack, with the addresses it came from),
 * rate-limit hits) on stdout, and the same event stored in MongoDB (`audit_events`) for operators to
 * query, expiring after the retention period through a TTL index.
 *
 * Writing never blocks or fails a request: a storage error is logged and the event is still on
 * stdout. Events carry ids, never secrets (no tokens, codes, passwords or client secrets).
 *
 * Storage is batched: events recorded within `batchMs` (200 ms) of each other go to MongoDB in one
 * `insertMany`, one batch at a time, so a burst of token requests costs one round trip per batch
 * instead of one insert each (a per-event insert was the largest cost of a refresh in scripts/bench).
 * The stdout line is still written at once; `query` and `close` store what is pending first. A crash
 * loses at most the pending batch from MongoDB, never from stdout.
 *
 * One address cannot flood it: at most `perAddressPerMinute` (60) events of one type from one address
 * about one account (or about none) are logged and stored one by one per minute and process
 * (flood-guard.ts); the rest are stored as one `audit_summary` event per window with their count, and
 * the metrics still count every one.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { Logger } from '../logger.js';
import { AuditFloodGuard } from './flood-guard.js';

/** The kinds of security event. */
export const AUDIT_EVENT_TYPES = [
  'client_registered',
  'client_deleted',
  'consent_granted',
  'consent_denied',
  'login_succeeded',
  'login_failed',
  'login_locked',
  'login_attack_suspected',
  'tokens_issued',
  'refresh_token_reuse',
  'refresh_token_reuse_allowed',
  'code_replay',
  'token_revoked',
  'grant_revoked',
  'grant_narrowed',
  'grant_shortened',
  'grant_kept',
  'rate_limited',
  'signed_out',
  'password_changed',
  'sessions_ended',
  'account_created',
  'account_unlocked',
  'password_reset',
  'account_disabled',
  'account_enabled',
  'account_removed',
  'role_changed',
  'role_created',
  'role_ceiling_changed',
  'role_removed',
  'approval_requested',
  'approval_granted',
  'approval_denied',
  'passkey_registered',
  'passkey_removed',
  'passkey_refused',
  'recovery_codes_generated',
  'recovery_codes_removed',
  'recovery_code_used',
  'factor_confirmed',
  'password_sign_in_refused',
  'password_sign_in_switched',
  'device_pairing_requested',
  'device_pairing_shown',
  'device_pairing_approved',
  'device_pairing_denied',
  'device_pairing_expired',
  'app_reviewed',
  'app_review_requested',
  'audit_summary',
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
  /** Only events older than this one (the last of the previous page): paging newest first. */
  before?: Pick<AuditEvent, 'at' | '_id'>;
  limit?: number;
}

function model(connection: Connection): Model<AuditEvent> {
  if (connection.models.AuditEvent) return connection.models.AuditEvent as Model<AuditEvent>;
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
  // Newest first, by each filter the Activity page and `school-auth audit` offer; `_id` breaks ties
  // between events of the same millisecond, so paging never skips or repeats one.
  schema.index({ type: 1, at: -1 });
  schema.index({ at: -1, _id: -1 });
  schema.index({ clientId: 1, at: -1 });
  schema.index({ accountId: 1, at: -1 });
  return connection.model('AuditEvent', schema) as unknown as Model<AuditEvent>;
}

/** How storage batches events. */
export interface AuditBatching {
  /** The longest an event waits before its batch is stored, ms. Default 200. */
  batchMs?: number;
  /** A batch is stored as soon as it has this many events. Default 1000. */
  batchSize?: number;
  /** Events kept waiting at most (beyond, new events are only logged, with a warning). Default 50000. */
  maxPending?: number;
  /**
   * Events of one type from one address about one account logged and stored one by one per minute
   * (flood-guard.ts); the rest are summarised. Default 60.
   */
  perAddressPerMinute?: number;
}

/** Records and queries security events. */
export class AuditLog {
  private readonly events: Model<AuditEvent>;
  private readonly retentionSeconds: number;
  private purgeTimer?: NodeJS.Timeout;
  private summaryTimer?: NodeJS.Timeout;
  private readonly batchMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private pending: { event: AuditEvent; stored: () => void }[] = [];
  private batchTimer?: NodeJS.Timeout;
  /** The batch being stored (one at a time), resolved when it is done. */
  private storing: Promise<void> = Promise.resolve();
  /** Told of every event as it is recorded (the metrics count them). */
  private readonly observers: ((type: AuditEventType) => void)[] = [];
  private readonly floodGuard: AuditFloodGuard;

  constructor(
    connection: Connection,
    private readonly logger: Logger,
    retentionDays: number,
    batching: AuditBatching = {},
  ) {
    this.events = model(connection);
    this.retentionSeconds = retentionDays * 86400;
    this.batchMs = batching.batchMs ?? 200;
    this.batchSize = batching.batchSize ?? 1000;
    this.maxPending = batching.maxPending ?? 50_000;
    this.floodGuard = new AuditFloodGuard(batching.perAddressPerMinute ?? 60);
    this.summaryTimer = setInterval(() => this.recordHeldBack(), 60_000);
    this.summaryTimer.unref();
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

  /** Stops the purge timer and stores what is pending. */
  async close(): Promise<void> {
    clearInterval(this.purgeTimer);
    clearInterval(this.summaryTimer);
    this.recordHeldBack(true);
    await this.flush();
  }

  /** Calls `observer` with the type of every event recorded from now on. */
  observe(observer: (type: AuditEventType) => void): void {
    this.observers.push(observer);
  }

  /** Records an event; returns once it is stored (callers need not wait). */
  record(type: AuditEventType, fields: Omit<AuditEvent, '_id' | 'type' | 'at'> = {}): Promise<void> {
    const event: AuditEvent = { _id: randomUUID(), type, at: new Date(), ...fields };
    for (const observe of this.observers) observe(type);
    const admitted = this.floodGuard.admit(type, fields.ip, fields.accountId);
    if (admitted !== 'store') {
      if (admitted === 'first-over')
        this.logger.warn(
          { type, ip: fields.ip, accountId: fields.accountId },
          'audit: more events of this type from this address are counted and stored as one summary, for up to a minute',
        );
      return Promise.resolve();
    }
    return this.store(event);
  }

  /**
   * Records a summary event for each window of held-back events that has ended (with `all`, for
   * every window with held-back events so far), so that every event is in the log, one by one or
   * counted.
   */
  private recordHeldBack(all = false): void {
    for (const held of this.floodGuard.takeHeldBack(Date.now(), all)) {
      const { type, ip, accountId, count, from, to } = held;
      void this.store({
        _id: randomUUID(),
        type: 'audit_summary',
        at: new Date(),
        ip,
        ...(accountId ? { accountId } : {}),
        details: { type, count, from: from.toISOString(), to: to.toISOString() },
      });
    }
  }

  /** Logs `event` and queues it for storage; resolves once it is stored. */
  private store(event: AuditEvent): Promise<void> {
    const { type } = event;
    this.logger.info({ audit: true, ...event, at: event.at.toISOString() }, `audit ${type}`);
    if (this.pending.length >= this.maxPending) {
      this.logger.warn({ type }, 'audit event not stored: storage is falling behind');
      return Promise.resolve();
    }
    return new Promise<void>((stored) => {
      this.pending.push({ event, stored });
      if (this.pending.length >= this.batchSize) void this.flush();
      else if (!this.batchTimer) {
        this.batchTimer = setTimeout(() => void this.flush(), this.batchMs);
        this.batchTimer.unref();
      }
    });
  }

  /** Stores every pending event (after the batch being stored, if any); resolves when done. */
  flush(): Promise<void> {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return this.storing;
    this.storing = this.storing.then(async () => {
      try {
        // Lean: the events are built above with the schema's types, so mongoose's per-document
        // hydration, casting and validation would only cost time.
        await this.events.insertMany(
          batch.map((b) => b.event),
          { ordered: false, lean: true },
        );
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, events: batch.length }, 'audit events not stored');
      }
      for (const b of batch) b.stored();
    });
    return this.storing;
  }

  /**
   * The newest events matching `q` (at most 1000), including those recorded but not yet stored and
   * the counts of events held back so far.
   */
  async query(q: AuditQuery = {}): Promise<AuditEvent[]> {
    this.recordHeldBack(true);
    await this.flush();
    const filter: Record<string, unknown> = {};
    if (q.type) filter.type = q.type;
    if (q.clientId) filter.clientId = q.clientId;
    if (q.accountId) filter.accountId = q.accountId;
    if (q.since || q.until)
      filter.at = { ...(q.since ? { $gte: q.since } : {}), ...(q.until ? { $lte: q.until } : {}) };
    if (q.before) {
      const { at, _id } = q.before;
      filter.$and = [{ $or: [{ at: { $lt: at } }, { at, _id: { $lt: _id } }] }];
    }
    return this.events
      .find(filter)
      .sort({ at: -1, _id: -1 })
      .limit(Math.min(q.limit ?? 100, 1000))
      .lean<AuditEvent[]>();
  }
}
