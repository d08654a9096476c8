// Why the people store refused a change, one class per reason, each with a stable `code` the
// routes will map to a problem (404, 409, 410, 400…). None of them carries a token or a hash.

export abstract class PeopleStoreError extends Error {
  abstract readonly code: string;
}

/** Input that is not a person's: a malformed email, an unknown role, a bad hash or secret. */
export class InvalidPersonInputError extends PeopleStoreError {
  readonly code = 'invalid_person_input';
  constructor(
    readonly field: string,
    reason = 'invalid',
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidPersonInputError';
  }
}

export class PersonNotFoundError extends PeopleStoreError {
  readonly code = 'person_not_found';
  constructor(readonly email: string) {
    super('no such person');
    this.name = 'PersonNotFoundError';
  }
}

/** The change would leave no enabled admin who can sign in. */
export class LastAdminError extends PeopleStoreError {
  readonly code = 'last_admin';
  constructor(
    readonly email: string,
    readonly change: 'demote' | 'disable' | 'remove',
  ) {
    super(`the last admin cannot be ${change === 'demote' ? 'demoted' : `${change}d`}`);
    this.name = 'LastAdminError';
  }
}

/** An invitation for someone already in Card Console (who can sign in, unless disabled). */
export class PersonExistsError extends PeopleStoreError {
  readonly code = 'person_exists';
  constructor(
    readonly email: string,
    readonly disabled = false,
  ) {
    super(disabled ? 'this person is here, disabled' : 'this person can already sign in');
    this.name = 'PersonExistsError';
  }
}

/** The role of a person who came through single sign-on follows the provider's claims. */
export class RoleFromProviderError extends PeopleStoreError {
  readonly code = 'role_from_provider';
  constructor(readonly email: string) {
    super("this person's role comes from the single sign-on provider");
    this.name = 'RoleFromProviderError';
  }
}

/**
 * A single sign-on identity nobody is linked to claims the email of a person already here: it
 * never becomes them (an operator links them explicitly).
 */
export class SsoEmailTakenError extends PeopleStoreError {
  readonly code = 'sso_email_taken';
  constructor(readonly email: string) {
    super('another person has this email');
    this.name = 'SsoEmailTakenError';
  }
}

export class InvitationNotFoundError extends PeopleStoreError {
  readonly code = 'invitation_not_found';
  constructor() {
    super('no such invitation');
    this.name = 'InvitationNotFoundError';
  }
}

export class InvitationExpiredError extends PeopleStoreError {
  readonly code = 'invitation_expired';
  constructor() {
    super('the invitation has expired');
    this.name = 'InvitationExpiredError';
  }
}

export class InvitationUsedError extends PeopleStoreError {
  readonly code = 'invitation_used';
  constructor() {
    super('the invitation was used already');
    this.name = 'InvitationUsedError';
  }
}

/** A newer invitation replaced it, or the person was removed. */
export class InvitationRevokedError extends PeopleStoreError {
  readonly code = 'invitation_revoked';
  constructor() {
    super('the invitation was withdrawn');
    this.name = 'InvitationRevokedError';
  }
}

/** Admins sign in with a second factor: accepting an admin's invitation needs a TOTP secret. */
export class SecondFactorRequiredError extends PeopleStoreError {
  readonly code = 'second_factor_required';
  constructor() {
    super('an admin needs a TOTP secret');
    this.name = 'SecondFactorRequiredError';
  }
}

/**
 * The secret whose code was checked is no longer the one made for the invitation: a newer one
 * replaced it (the sign-up page was opened again).
 */
export class InvitationSecretReplacedError extends PeopleStoreError {
  readonly code = 'invitation_secret_replaced';
  constructor() {
    super('a newer authenticator secret was made for this invitation');
    this.name = 'InvitationSecretReplacedError';
  }
}

/** A single sign-on identity already linked to another person. */
export class SsoLinkTakenError extends PeopleStoreError {
  readonly code = 'sso_link_taken';
  constructor(readonly email: string) {
    super('another person is linked to this single sign-on identity');
    this.name = 'SsoLinkTakenError';
  }
}

/** Unlinking would leave the person no way to sign in (they have no password). */
export class LastSignInWayError extends PeopleStoreError {
  readonly code = 'last_sign_in_way';
  constructor(readonly email: string) {
    super('this person signs in only through single sign-on: disable or remove them instead');
    this.name = 'LastSignInWayError';
  }
}
