// What the People endpoints do (packages/shared/src/api/people.ts): admins list, invite,
// re-role, disable, enable and remove people and end their sessions; an invitee looks their
// invitation up and signs up with it. The rules that must hold under races (the last admin, an
// invitation used once) are the store's; here are the ones about the request: who asks, a
// recent second factor for every change, an admin never disabling or removing themself, the
// audit record of every change, and the sign-up's limits, hashing and authenticator check.

import type { AuditAction, AuditOutcome } from '@card-console/shared/api/audit-enums';
import type { Role } from '@card-console/shared/api/meta';
import {
  INVITATION_PAGE,
  type InvitationAuthenticator,
  type InvitationCreated,
  type InvitationView,
  type OpenInvitation as OpenInvitationView,
  type PeopleList,
  type PersonView,
  type SessionList,
} from '@card-console/shared/api/people';
import type { Request, Response } from 'express';
import { AppError } from '../../core/app-error';
import {
  type AnyBeforeCommit,
  AuditUnavailableError,
  auditedChange,
} from '../../platform/audit/audited-change';
import type { SendInvitation } from '../../platform/notify/invitation-email';
import type { FactorStore } from '../../platform/passkeys/factor-store';
import {
  type Counter,
  giveBack,
  type HeldPoint,
  reserve,
} from '../../platform/security/attempt-reservation';
import { type RateLimiters, tooManyRequests } from '../../platform/security/rate-limits';
import { otpauthUri, type TotpVerifier } from '../../platform/security/totp';
import { activeSession } from '../../platform/sessions/session-service';
import { who } from '../../platform/sessions/who';
import { HashingBusyError, type HashingGate } from '../../platform/users/hashing-gate';
import { hashPassword, productionScrypt } from '../../platform/users/password-hash';
import type { FeatureDeps } from '../feature-deps';
import {
  InvalidPersonInputError,
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationRevokedError,
  InvitationSecretReplacedError,
  InvitationUsedError,
  LastAdminError,
  PeopleStoreError,
  PersonExistsError,
  PersonNotFoundError,
  RoleFromProviderError,
  SecondFactorRequiredError,
} from './people-errors';
import type { PeopleStore } from './people-store';
import type { PersonSummary } from './person';
import type { PersonSessions } from './person-sessions';

/** What the People endpoints are built from, when the product keeps people in its store. */
export interface PeopleWiring {
  store: PeopleStore;
  sessions: PersonSessions;
  /**
   * Sends the invitation link to the invitee (email delivery). Without it, or when it fails,
   * the admin sends the link themself: the answer says `emailed: false`.
   */
  sendInvitation?: SendInvitation | undefined;
  /** The origin invitation links start with; the product's public origin by default. */
  publicOrigin?: string | undefined;
  /**
   * The second factors (keyed by email, in a store of their own): a removed person's are
   * dropped, so whoever is given that email next does not sign in with them.
   */
  factors?: Pick<FactorStore, 'forget'> | undefined;
}

export interface PeopleDeps extends Pick<FeatureDeps, 'audit' | 'stepUp' | 'logger' | 'clock'> {
  /** Absent: people are not kept in the store, and every People endpoint answers 404. */
  people?: PeopleWiring | undefined;
  limiters: RateLimiters;
  hashing: HashingGate;
  totp: TotpVerifier;
  /** `${publicOrigin}/sign-in`: where invitation links take their origin from by default. */
  signedOutUrl: string;
}

/**
 * Runs a store change with the change's success record in the change's own transaction
 * (platform/audit/audited-change.ts), `detail` saying what it did: together or not at all.
 */
type Commit = <R>(
  run: (audited: AnyBeforeCommit) => Promise<R>,
  detail: (result: R) => string,
) => Promise<R>;

/** The change an audit record names, and what it tried to change, in words. */
interface ChangeSpec {
  action: AuditAction;
  target: string;
  attempt: string;
  /** A refusal that needs no second factor to be told (yourself): checked before asking one. */
  precheck?: () => void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const notMounted = () => new AppError(404, 'not_found', 'There is no such API endpoint.');
const noSuchPerson = () => new AppError(404, 'not_found', 'There is no such person.');

/** Refusals by a rule (recorded `denied`); anything else that stops a change is `failed`. */
const RULE_CODES = new Set([
  'step_up_required',
  'invalid_request',
  'last_admin',
  'role_from_provider',
  'person_exists',
  'invitation_expired',
  'invitation_used',
  'invitation_revoked',
  'invalid_totp',
  'invalid_body',
  'rate_limited',
]);

/**
 * A removal's record: the role they had, and what went with them (their receipt inbox, their
 * alert rules: PeopleStore.remove), so the trail says what a removal took.
 */
export function removedDetail(
  before: { role: string; disabled?: boolean | undefined },
  leftBehind: readonly string[],
): string {
  const was = `removed (was ${before.role}${before.disabled ? ', disabled' : ''})`;
  return leftBehind.length === 0 ? was : `${was}; with them: ${leftBehind.join(', ')}`;
}

/**
 * The record of what a removed person left behind, dropped later (before the email is invited
 * or added again): made in the seconds after the removal when another replica still knew them.
 */
export function leftoversDetail(dropped: readonly string[]): string {
  return `dropped what was left under the email after the removal: ${dropped.join(', ')}`;
}

/** The store's refusals as the API answers them; anything else goes on as it is (a 500). */
export function problemOf(error: unknown): unknown {
  if (!(error instanceof PeopleStoreError)) return error;
  const cause = { cause: error };
  if (error instanceof LastAdminError) {
    const verb = { demote: 'demoted', disable: 'disabled', remove: 'removed' }[error.change];
    return new AppError(
      409,
      'last_admin',
      `${error.email} is the last enabled admin and cannot be ${verb}: make someone else an admin first.`,
      cause,
    );
  }
  if (error instanceof RoleFromProviderError) {
    return new AppError(
      409,
      'role_from_provider',
      `${error.email} signs in through single sign-on: their role comes from the provider, change it there.`,
      cause,
    );
  }
  if (error instanceof PersonExistsError) {
    return new AppError(
      409,
      'person_exists',
      error.disabled
        ? `${error.email} is already in Card Console, disabled: enable them instead of inviting them.`
        : `${error.email} can already sign in: change their role instead of inviting them.`,
      cause,
    );
  }
  if (error instanceof PersonNotFoundError)
    return new AppError(404, 'not_found', 'There is no such person.', cause);
  if (error instanceof InvitationNotFoundError) {
    return new AppError(
      404,
      'not_found',
      'This invitation link is not valid: copy the whole link, or ask for a new one.',
      cause,
    );
  }
  if (error instanceof InvitationExpiredError) {
    return new AppError(
      410,
      'invitation_expired',
      'This invitation has expired: ask an admin for a new one.',
      cause,
    );
  }
  if (error instanceof InvitationUsedError) {
    return new AppError(
      410,
      'invitation_used',
      'This invitation was used already: sign in instead.',
      cause,
    );
  }
  if (error instanceof InvitationRevokedError) {
    return new AppError(
      410,
      'invitation_revoked',
      'This invitation was withdrawn: ask an admin for a new one.',
      cause,
    );
  }
  if (error instanceof SecondFactorRequiredError) {
    return new AppError(
      400,
      'invalid_body',
      'An admin signs in with an authenticator: add the secret made for this invitation to one, and send a totpCode it shows.',
      cause,
    );
  }
  if (error instanceof InvitationSecretReplacedError) {
    return new AppError(
      400,
      'invalid_totp',
      'A newer authenticator key was made for this invitation: scan the QR code shown last and enter the code it gives.',
      cause,
    );
  }
  if (error instanceof InvalidPersonInputError) {
    return new AppError(400, 'invalid_body', `${error.field} is not valid.`, cause);
  }
  return error;
}

const codeOf = (error: unknown) => (error instanceof AppError ? error.code : 'internal_error');

export function createPeopleService(deps: PeopleDeps) {
  const { audit, stepUp, logger, limiters } = deps;

  const wiring = (): PeopleWiring => {
    if (!deps.people) throw notMounted();
    return deps.people;
  };

  const linkOrigin = () => new URL(deps.people?.publicOrigin ?? deps.signedOutUrl).origin;

  /** An audit record that could not be written after the fact: the operator sees the loss. */
  const recordOrLog = async (record: Parameters<typeof audit.append>[0]) => {
    try {
      await audit.append(record);
    } catch (error) {
      logger.error(
        { err: error, requestId: record.requestId, action: record.action },
        'audit append failed for a people change that did not happen',
      );
    }
  };

  /**
   * A change by an admin: a recent second factor first, then `work`, whose store change goes
   * through `commit` with its audit record (a trail that cannot take it leaves everything as it
   * was: 503 `audit_unavailable`); a refusal or failure is recorded with its code and what was
   * tried.
   */
  async function change<T>(
    req: Request,
    res: Response,
    spec: ChangeSpec,
    work: (commit: Commit) => Promise<T>,
  ): Promise<T> {
    const person = who(req);
    const base = {
      actor: person.actor.email,
      role: person.actor.role,
      action: spec.action,
      target: spec.target,
      requestId: person.requestId,
    };
    const commit: Commit = (run, detail) =>
      auditedChange({ audit, logger }, run, (result) => [
        { ...base, outcome: 'success', detail: detail(result) },
      ]);
    try {
      spec.precheck?.();
      await stepUp.require(req, res);
      return await work(commit);
    } catch (caught) {
      // Not made, and the trail cannot take a record of that either.
      if (caught instanceof AuditUnavailableError) throw caught;
      const error = problemOf(caught);
      const code = codeOf(error);
      const outcome: AuditOutcome = RULE_CODES.has(code) ? 'denied' : 'failed';
      await recordOrLog({ ...base, outcome, detail: `${code}: ${spec.attempt}` });
      throw error;
    }
  }

  /** Ends the person's sessions after a change of who they are; their version ends them anyway. */
  async function endSessionsAfter(email: string, requestId: string) {
    try {
      return await wiring().sessions.endAll(email);
    } catch (error) {
      logger.error(
        { err: error, requestId },
        "ending a changed person's sessions failed; their version ends them at their next request",
      );
      return 0;
    }
  }

  /**
   * Drops a removed person's second factors, after the removal: the factors are another store
   * (a file with one replica), so not in its transaction. A failure is logged; the removal stands.
   */
  async function forgetFactorsOf(email: string, requestId: string) {
    const factors = wiring().factors;
    if (!factors) return;
    try {
      await factors.forget(email);
    } catch (error) {
      logger.error(
        { err: error, requestId },
        "dropping a removed person's second factors failed: an invitation of the email drops them",
      );
    }
  }

  const notYourself = (req: Request, email: string, what: 'disable' | 'remove') => {
    if (who(req).actor.email.toLowerCase() === email) {
      throw new AppError(
        400,
        'invalid_request',
        `You cannot ${what} yourself here: another admin can, so the product is never left without you by mistake.`,
      );
    }
  };

  async function personView(summary: PersonSummary, me: string): Promise<PersonView> {
    const open = summary.pending ? [] : await wiring().sessions.list(summary.email);
    return {
      email: summary.email,
      role: summary.role,
      disabled: summary.disabled,
      source: summary.source,
      pending: summary.pending,
      hasTotp: summary.hasTotp,
      createdAt: summary.createdAt,
      ...(summary.lastSignIn ? { lastSignIn: summary.lastSignIn } : {}),
      activeSessions: open.length,
      you: summary.email === me,
    };
  }

  async function existing(email: string) {
    const found = await wiring().store.find(email);
    if (!found) throw noSuchPerson();
    return found;
  }

  /**
   * One attempt of an anonymous invitee, counted per address like a sign-in before anything
   * is looked at: a refusal keeps its point, a success gives it back.
   */
  async function counted<T>(req: Request, work: () => Promise<T>): Promise<T> {
    const counter: Counter = { limiter: limiters.signInPerAddress, key: req.ip ?? 'unknown' };
    const reservation = await reserve([counter]);
    if (!reservation.ok) {
      throw tooManyRequests(
        reservation.msBeforeNext,
        'Too many attempts; wait before trying again.',
      );
    }
    const [held] = reservation.held as [HeldPoint];
    try {
      const result = await work();
      await giveBack(held);
      return result;
    } catch (error) {
      // Nothing was checked (no hashing slot): the attempt counts nowhere.
      if (error instanceof AppError && error.code === 'rate_limited') await giveBack(held);
      throw error;
    }
  }

  return {
    async list(req: Request): Promise<PeopleList> {
      const { store } = wiring();
      const me = who(req).actor.email.toLowerCase();
      const [people, invitations] = await Promise.all([store.list(), store.openInvitations()]);
      return {
        people: await Promise.all(people.map((p) => personView(p, me))),
        invitations: invitations satisfies OpenInvitationView[],
      };
    },

    invite(
      req: Request,
      res: Response,
      input: { email: string; role: Role; days: number },
    ): Promise<InvitationCreated> {
      const { store, sendInvitation } = wiring();
      const attempt = `invite as ${input.role} for ${input.days} days`;
      return change(
        req,
        res,
        { action: 'person.invite', target: input.email, attempt },
        async (commit) => {
          // Nobody has the email: factors kept under it are a removed person's (their drop
          // failed), never the invitee's to sign in with.
          const factors = wiring().factors;
          if (!(await store.find(input.email))) {
            await factors?.forget(input.email);
            await auditedChange(
              { audit, logger },
              (audited) => store.dropLeftBehind(input.email, audited),
              (dropped) => [
                {
                  actor: who(req).actor.email,
                  role: who(req).actor.role,
                  action: 'person.remove',
                  target: input.email,
                  requestId: who(req).requestId,
                  outcome: 'success',
                  detail: leftoversDetail(dropped),
                },
              ],
            );
          }
          // Recorded with the invitation, before any email: whether one went out is the
          // answer's (and the log's) to say.
          const invitation = await commit(
            (audited) =>
              store.invite(
                input.email,
                input.role,
                who(req).actor.email,
                input.days * DAY_MS,
                audited,
              ),
            (created) => `invited as ${created.role} until ${created.expiresAt}`,
          );
          const link = `${linkOrigin()}${INVITATION_PAGE}#${invitation.token}`;
          let emailed = false;
          if (sendInvitation) {
            try {
              await sendInvitation(invitation.email, link, {
                role: invitation.role,
                expiresAt: invitation.expiresAt,
                invitedBy: who(req).actor.email,
              });
              emailed = true;
            } catch (error) {
              // The admin still has the link to send: the invitation stands. Only the error's
              // own words are logged (not its cause, which may carry the message sent).
              logger.warn(
                { requestId: req.requestId, error: (error as Error)?.message },
                'the invitation email could not be sent',
              );
            }
          }
          return {
            email: invitation.email,
            role: invitation.role,
            expiresAt: invitation.expiresAt,
            link,
            emailed,
          };
        },
      );
    },

    withdrawInvitation(req: Request, res: Response, email: string): Promise<undefined> {
      const { store } = wiring();
      const spec = {
        action: 'person.invitationWithdraw',
        target: email,
        attempt: 'withdraw the invitation',
      } as const;
      return change(req, res, spec, async (commit) => {
        const withdrawn = await commit(
          (audited) => store.withdrawInvitation(email, audited),
          () => 'invitation withdrawn',
        );
        if (!withdrawn) throw new AppError(404, 'not_found', `${email} has no open invitation.`);
        return undefined;
      });
    },

    changeRole(req: Request, res: Response, email: string, role: Role): Promise<PersonView> {
      const { store } = wiring();
      const spec = { action: 'person.role', target: email, attempt: `role → ${role}` } as const;
      return change(req, res, spec, async (commit) => {
        const before = await existing(email);
        const after = await commit(
          (audited) => store.changeRole(email, role, audited),
          (changed) =>
            changed.version !== before.version
              ? `role ${before.role} → ${changed.role}`
              : `role ${changed.role} (unchanged)`,
        );
        if (after.version !== before.version) await endSessionsAfter(after.email, req.requestId);
        return personView(after, who(req).actor.email.toLowerCase());
      });
    },

    disable(req: Request, res: Response, email: string): Promise<PersonView> {
      const { store } = wiring();
      const spec = {
        action: 'person.disable',
        target: email,
        attempt: 'disable',
        precheck: () => notYourself(req, email, 'disable'),
      } as const;
      return change(req, res, spec, async (commit) => {
        const after = await commit(
          (audited) => store.disable(email, audited),
          () => 'disabled',
        );
        await endSessionsAfter(after.email, req.requestId);
        return personView(after, who(req).actor.email.toLowerCase());
      });
    },

    enable(req: Request, res: Response, email: string): Promise<PersonView> {
      const { store } = wiring();
      const spec = { action: 'person.enable', target: email, attempt: 'enable' } as const;
      return change(req, res, spec, async (commit) => {
        const after = await commit(
          (audited) => store.enable(email, audited),
          () => 'enabled',
        );
        return personView(after, who(req).actor.email.toLowerCase());
      });
    },

    remove(req: Request, res: Response, email: string): Promise<undefined> {
      const { store } = wiring();
      const spec = {
        action: 'person.remove',
        target: email,
        attempt: 'remove',
        precheck: () => notYourself(req, email, 'remove'),
      } as const;
      return change(req, res, spec, async (commit) => {
        const before = await existing(email);
        await commit(
          (audited) => store.remove(email, audited),
          (removed) => removedDetail(before, removed.leftBehind),
        );
        await endSessionsAfter(email, req.requestId);
        await forgetFactorsOf(email, req.requestId);
        return undefined;
      });
    },

    async sessions(req: Request, email: string): Promise<SessionList> {
      const { sessions } = wiring();
      await existing(email);
      // The session's reference, when sessions carry one: the caller's own row is marked.
      const current = (activeSession(req)?.record as { ref?: unknown } | undefined)?.ref;
      const open = await sessions.list(email);
      return {
        sessions: open.map((s) => ({
          id: s.id,
          method: s.method,
          startedAt: new Date(s.startedAt).toISOString(),
          lastSeenAt: new Date(s.lastSeenAt).toISOString(),
          current: typeof current === 'string' && s.id === current,
        })),
      };
    },

    endSessions(req: Request, res: Response, email: string): Promise<undefined> {
      const { sessions } = wiring();
      const spec = {
        action: 'person.sessionsEnd',
        target: email,
        attempt: 'end every session',
      } as const;
      return change(req, res, spec, async (commit) => {
        await existing(email);
        await commit(
          (audited) => sessions.endAll(email, audited),
          (ended) => `${ended} session${ended === 1 ? '' : 's'} ended`,
        );
        return undefined;
      });
    },

    endSession(req: Request, res: Response, email: string, id: string): Promise<undefined> {
      const { sessions } = wiring();
      const spec = {
        action: 'person.sessionsEnd',
        target: email,
        attempt: `end session ${id}`,
      } as const;
      return change(req, res, spec, async (commit) => {
        await existing(email);
        const ended = await commit(
          (audited) => sessions.end(email, id, audited),
          () => `session ${id} ended`,
        );
        if (!ended) {
          throw new AppError(404, 'not_found', 'There is no such open session of this person.');
        }
        return undefined;
      });
    },

    lookup(req: Request, token: string): Promise<InvitationView> {
      const { store } = wiring();
      return counted(req, async () => {
        try {
          const found = await store.findInvitation(token);
          return { ...found, needsSecondFactor: found.role === 'admin' };
        } catch (error) {
          throw problemOf(error);
        }
      });
    },

    /**
     * The invitee's authenticator secret, made here (never by the browser) and kept sealed with
     * the invitation: the sign-up takes codes of the one made last only.
     */
    authenticator(req: Request, token: string): Promise<InvitationAuthenticator> {
      const { store } = wiring();
      return counted(req, async () => {
        try {
          const { email, secret } = await store.issueInvitationSecret(token);
          return { secret, otpauthUri: otpauthUri(email, secret) };
        } catch (error) {
          throw problemOf(error);
        }
      });
    },

    accept(
      req: Request,
      input: { token: string; password: string; totpCode?: string | undefined },
    ): Promise<{ email: string }> {
      const { store } = wiring();
      return counted(req, async () => {
        let found: Awaited<ReturnType<PeopleStore['findInvitation']>>;
        try {
          // Cheap checks first: a link that cannot be used costs no hash.
          found = await store.findInvitation(input.token);
        } catch (error) {
          throw problemOf(error);
        }
        const base = {
          actor: found.email,
          role: found.role,
          action: 'person.signUp',
          target: found.email,
          requestId: req.requestId,
        } as const;
        const refuse = async (error: unknown): Promise<never> => {
          const problem = problemOf(error);
          const code = codeOf(problem);
          await recordOrLog({
            ...base,
            outcome: RULE_CODES.has(code) ? 'denied' : 'failed',
            detail: code,
          });
          throw problem;
        };
        const { totpCode } = input;
        if (found.role === 'admin' && totpCode === undefined) {
          return refuse(new SecondFactorRequiredError());
        }
        // Only the secret made for this invitation: a code proves the authenticator holds it.
        const totpSecret =
          totpCode === undefined ? undefined : await store.invitationSecret(input.token);
        if (totpCode !== undefined && totpSecret === undefined) {
          return refuse(
            new AppError(
              400,
              'invalid_body',
              'Set up the authenticator first: ask for its key (POST /api/invitations/authenticator), then send a code it shows.',
            ),
          );
        }
        if (
          totpSecret !== undefined &&
          !(await deps.totp.verify(found.email, totpSecret, totpCode as string))
        ) {
          return refuse(
            new AppError(
              400,
              'invalid_totp',
              'That code does not match: scan the QR code again and enter the code your authenticator shows now.',
            ),
          );
        }
        let hash: string;
        try {
          hash = await deps.hashing.run(() => hashPassword(input.password, productionScrypt));
        } catch (error) {
          if (!(error instanceof HashingBusyError)) throw error;
          throw new AppError(429, 'rate_limited', 'Signing up is busy; try again in a moment.', {
            retryAfterSeconds: 1,
          });
        }
        let person: Awaited<ReturnType<PeopleStore['acceptInvitation']>>;
        try {
          // Signed up together with its record, or not at all (503 audit_unavailable).
          person = await auditedChange(
            { audit, logger },
            (audited) => store.acceptInvitation(input.token, hash, totpSecret, audited),
            (signedUp) => [
              {
                ...base,
                role: signedUp.role,
                outcome: 'success',
                detail: signedUp.hasTotp ? 'signed up with an authenticator' : 'signed up',
              },
            ],
          );
        } catch (error) {
          if (error instanceof AuditUnavailableError) throw error;
          return refuse(error);
        }
        return { email: person.email };
      });
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
