import type { Request, Response } from 'express';
import { AppError } from '../../http/app-error';
import type { StepUp } from '../../http/deps';
import { activeSession, type SessionService } from '../sessions/session-service';
import type { UserDirectory } from '../users/user-directory';
import type { TotpVerifier } from './totp';

/** A second-factor check within the last 5 minutes, else a fresh TOTP code now. */
export class TotpStepUp implements StepUp {
  constructor(
    private readonly sessions: SessionService,
    private readonly users: UserDirectory,
    private readonly totp: TotpVerifier,
  ) {}

  async require(req: Request, res: Response, totp: string | undefined): Promise<void> {
    const session = activeSession(req);
    if (!session) throw new AppError(401, 'unauthenticated', 'Sign in first.');
    if (totp === undefined) {
      if (this.sessions.stepUpUntil(session.record) !== undefined) return;
      throw new AppError(401, 'step_up_required', 'Enter a code from your authenticator app.');
    }
    const secret = this.users.find(session.record.email)?.totpSecret;
    if (!secret || !(await this.totp.verify(session.record.email, secret, totp))) {
      throw new AppError(
        401,
        'invalid_totp',
        'That code is not valid. Wait for the next one and retry.',
      );
    }
    await this.sessions.recordStepUp(req, res);
  }
}
