/**
 * Ask an admin (MongoDB `approval_requests`): a person whose role's ceiling (roles.ts) keeps them from
 * granting some of what an app asks records a request; an admin approves it (all or some of its
 * scopes, for a number of days) or denies it, with a note. A request nobody decided expires after
 * `APPROVAL_REQUEST_DAYS`. While an approval lasts, its scopes are grantable by that person for that
 * app ({@link ApprovalStore.adminApprovedScopes}); the person is told of each decision once, on their
 * next visit to the account pages.
 *
 * One pending request per person and app: asking again adds the scopes to it and starts its time again.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import type { ClientKind } from '../clients/client-kind.js';

/** What a request's state is: `expired` is a pending one past its time. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** A request as stored. */
export interface ApprovalRequest {
  _id: string;
  accountId: string;
  accountEmail: string;
  clientId: string;
  clientName?: string;
  clientKind: ClientKind;
  /** A metadata-document client's domain (the host of its client id). */
  clientDomain?: string;
  /** The scopes asked for, beyond the person's ceiling. */
  scopes: string[];
  /** The "how long" the person chose on the page (access-duration.ts answers). */
  duration: string;
  requestedAt: Date;
  expiresAt: Date;
  status: 'pending' | 'approved' | 'denied';
  decidedBy?: string;
  decidedAt?: Date;
  note?: string;
  /** Of `scopes`, those approved. */
  approvedScopes?: string[];
  /** Until when the approved scopes are grantable by the person. */
  approvedUntil?: Date;
  /** The person has been told of the decision. */
  told?: boolean;
}

/** One scope an admin approved for an account and app: by whom, when, until when. */
export interface ApprovedScope {
  scope: string;
  approvedBy: string;
  approvedAt: Date;
  until: Date;
  requestId: string;
}

/** What a new request says. */
export type NewApprovalRequest = Pick<
  ApprovalRequest,
  | 'accountId'
  | 'accountEmail'
  | 'clientId'
  | 'clientName'
  | 'clientKind'
  | 'clientDomain'
  | 'scopes'
  | 'duration'
>;

/** A decision refused: the request is gone, decided, expired, or the choice is not in it. */
export class DecisionRefused extends Error {}

function model(connection: Connection): Model<ApprovalRequest> {
  if (connection.models.ApprovalRequest) return connection.models.ApprovalRequest as Model<ApprovalRequest>;
  const schema = new Schema<ApprovalRequest>(
    {
      _id: { type: String, required: true },
      accountId: { type: String, required: true },
      accountEmail: { type: String, required: true },
      clientId: { type: String, required: true },
      clientName: String,
      clientKind: { type: String, required: true },
      clientDomain: String,
      scopes: { type: [String], required: true },
      duration: { type: String, required: true },
      requestedAt: { type: Date, required: true },
      expiresAt: { type: Date, required: true },
      status: { type: String, required: true, enum: ['pending', 'approved', 'denied'] },
      decidedBy: String,
      decidedAt: Date,
      note: String,
      approvedScopes: [String],
      approvedUntil: Date,
      told: Boolean,
    },
    { collection: 'approval_requests', versionKey: false },
  );
  schema.index({ accountId: 1, clientId: 1, status: 1 });
  schema.index({ status: 1, requestedAt: -1 });
  return connection.model('ApprovalRequest', schema) as unknown as Model<ApprovalRequest>;
}

/** A request's state at `now`. */
export function statusOf(r: Pick<ApprovalRequest, 'status' | 'expiresAt'>, now = new Date()): ApprovalStatus {
  return r.status === 'pending' && r.expiresAt <= now ? 'expired' : r.status;
}

const DAY_MS = 24 * 3600 * 1000;

/** The approval requests. */
export class ApprovalStore {
  private readonly model: Model<ApprovalRequest>;

  /** `days`: how long a request waits for a decision (APPROVAL_REQUEST_DAYS). */
  constructor(
    connection: Connection,
    private readonly days: number,
  ) {
    this.model = model(connection);
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Records a request (or adds to the person's pending one for that app); returns it. */
  async request(asked: NewApprovalRequest, now = new Date()): Promise<ApprovalRequest> {
    const expiresAt = new Date(now.getTime() + this.days * DAY_MS);
    const pending = await this.model
      .findOne({
        accountId: asked.accountId,
        clientId: asked.clientId,
        status: 'pending',
        expiresAt: { $gt: now },
      })
      .lean<ApprovalRequest>();
    if (pending) {
      const scopes = [...new Set([...pending.scopes, ...asked.scopes])];
      await this.model.updateOne(
        { _id: pending._id },
        { $set: { ...asked, scopes, requestedAt: now, expiresAt } },
      );
      return { ...pending, ...asked, scopes, requestedAt: now, expiresAt };
    }
    const doc: ApprovalRequest = {
      _id: randomUUID(),
      ...asked,
      requestedAt: now,
      expiresAt,
      status: 'pending',
    };
    await this.model.create(doc);
    return doc;
  }

  /** The request `id`, if there is one. */
  async find(id: string): Promise<ApprovalRequest | undefined> {
    return (await this.model.findById(id).lean<ApprovalRequest>()) ?? undefined;
  }

  /** The requests waiting for a decision at `now`, oldest first. */
  async pending(now = new Date()): Promise<ApprovalRequest[]> {
    return this.model
      .find({ status: 'pending', expiresAt: { $gt: now } })
      .sort({ requestedAt: 1, _id: 1 })
      .lean<ApprovalRequest[]>();
  }

  /** The newest requests in any state, newest first. */
  async recent(limit = 100): Promise<ApprovalRequest[]> {
    return this.model.find({}).sort({ requestedAt: -1, _id: 1 }).limit(limit).lean<ApprovalRequest[]>();
  }

  /**
   * Approves `scopes` (of those asked) of the pending request `id` for `days`, or denies it
   * (`scopes` undefined); refused when it is not pending at `now` or a scope was not asked.
   */
  async decide(
    id: string,
    decision: { by: string; note?: string } & ({ approve: string[]; days: number } | { deny: true }),
    now = new Date(),
  ): Promise<ApprovalRequest> {
    const found = await this.find(id);
    if (!found) throw new DecisionRefused('There is no such request.');
    const status = statusOf(found, now);
    if (status !== 'pending') throw new DecisionRefused(`That request is ${status} already.`);
    const note = decision.note?.trim().slice(0, 500) || undefined;
    const decided = { decidedBy: decision.by, decidedAt: now, ...(note ? { note } : {}), told: false };
    let set: Partial<ApprovalRequest>;
    if ('approve' in decision) {
      const approved = found.scopes.filter((s) => decision.approve.includes(s));
      const notAsked = decision.approve.filter((s) => !found.scopes.includes(s));
      if (notAsked.length) throw new DecisionRefused(`Not asked for: ${notAsked.join(', ')}.`);
      if (!approved.length) throw new DecisionRefused('Approve at least one scope, or deny the request.');
      const approvedUntil = new Date(now.getTime() + decision.days * DAY_MS);
      set = { ...decided, status: 'approved', approvedScopes: approved, approvedUntil };
    } else set = { ...decided, status: 'denied' };
    // Only a request still pending is decided: two admins deciding at once, the first one counts.
    const done = await this.model.updateOne({ _id: id, status: 'pending' }, { $set: set });
    if (!done.modifiedCount) throw new DecisionRefused('That request was decided already.');
    return { ...found, ...set };
  }

  /**
   * The scopes an admin approved for `accountId` to grant `clientId` that still hold at `now`: which,
   * by whom, when and until when (the latest approval of each scope).
   */
  async adminApprovedScopes(accountId: string, clientId: string, now = new Date()): Promise<ApprovedScope[]> {
    const approvals = await this.model
      .find({ accountId, clientId, status: 'approved', approvedUntil: { $gt: now } })
      .sort({ decidedAt: 1 })
      .lean<ApprovalRequest[]>();
    const byScope = new Map<string, ApprovedScope>();
    for (const a of approvals)
      for (const scope of a.approvedScopes ?? [])
        byScope.set(scope, {
          scope,
          approvedBy: a.decidedBy!,
          approvedAt: a.decidedAt!,
          until: a.approvedUntil!,
          requestId: a._id,
        });
    return [...byScope.values()];
  }

  /**
   * Who approved what for `accountId` and `clientId`, whenever it was (an approval that has lapsed
   * still says who let the scopes of a grant made meanwhile in): each admin with the scopes approved.
   */
  async approversOf(accountId: string, clientId: string): Promise<{ by: string; scopes: string[] }[]> {
    const approvals = await this.model
      .find({ accountId, clientId, status: 'approved' })
      .sort({ decidedAt: 1 })
      .lean<ApprovalRequest[]>();
    const byAdmin = new Map<string, Set<string>>();
    for (const a of approvals) {
      const scopes = byAdmin.get(a.decidedBy!) ?? new Set<string>();
      for (const scope of a.approvedScopes ?? []) scopes.add(scope);
      byAdmin.set(a.decidedBy!, scopes);
    }
    return [...byAdmin].map(([by, scopes]) => ({ by, scopes: [...scopes] }));
  }

  /** The decisions `accountId` has not been told of yet, marked told. */
  async takeUntold(accountId: string): Promise<ApprovalRequest[]> {
    const untold = await this.model
      .find({ accountId, status: { $in: ['approved', 'denied'] }, told: false })
      .sort({ decidedAt: 1 })
      .lean<ApprovalRequest[]>();
    if (untold.length)
      await this.model.updateMany({ _id: { $in: untold.map((r) => r._id) } }, { $set: { told: true } });
    return untold;
  }
}
