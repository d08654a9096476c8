import type { Role } from '@card-console/shared/api/meta';
import escapeHtml from 'escape-html';
import { newDeliveryId } from './delivery-id';
import { createEmailSender, type EmailSender, type EmailTimeouts } from './email-sender';

// The email that brings an invited person to Card Console: who invited them, as what, the
// link and until when it works. The link holds the invitation's token, the only secret here:
// it goes into the message and nowhere else (not the subject, the headers or an error).

/** What the invitation email says besides the link. */
export interface InvitationDetails {
  role: Role;
  /** When the link stops working, ISO 8601 in UTC. */
  expiresAt: string;
  /** The admin who invited them, by email. */
  invitedBy: string;
}

/** Sends the invitation link to the invitee; rejects when the message did not go out. */
export type SendInvitation = (
  email: string,
  link: string,
  details: InvitationDetails,
) => Promise<void>;

const roleWords: Record<Role, string> = {
  admin: 'an admin (managing people, alerts and every card)',
  finance: 'a member of the finance team',
};

const expiryFormat = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'UTC',
});

/** The expiry as people read it, in UTC so it means the same wherever the email is opened. */
function expiryText(expiresAt: string): string {
  const at = new Date(expiresAt);
  if (Number.isNaN(at.getTime())) throw new RangeError('the invitation needs a valid expiry');
  return `${expiryFormat.format(at)} UTC`;
}

/** The subject, plain text and HTML of an invitation email. */
export function renderInvitation(
  link: string,
  details: InvitationDetails,
): { subject: string; text: string; html: string } {
  const inviter = details.invitedBy.replace(/[\r\n]+/g, ' ');
  const role = roleWords[details.role];
  const until = expiryText(details.expiresAt);
  const text = [
    `${inviter} invited you to Card Console as ${role}.`,
    '',
    'Open this link to choose your password and sign in:',
    link,
    '',
    `The link works once, until ${until}. If it has expired, ask ${inviter} for a new one.`,
    'If you did not expect this invitation, you can ignore this email.',
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(inviter)} invited you to Card Console as ${escapeHtml(role)}.</p>`,
    `<p><a href="${escapeHtml(link)}">Choose your password and sign in</a></p>`,
    `<p>Or copy this link into your browser:<br>${escapeHtml(link)}</p>`,
    `<p>The link works once, until ${escapeHtml(until)}. If it has expired, ask ${escapeHtml(inviter)} for a new one.</p>`,
    '<p>If you did not expect this invitation, you can ignore this email.</p>',
    '</body></html>',
  ].join('\n');
  return { subject: 'You are invited to Card Console', text, html };
}

/** Invitations sent through an email sender (the same SMTP server and From as alerts). */
export function invitationSender(sender: EmailSender): SendInvitation {
  return async (email, link, details) => {
    const sent = await sender.sendRendered({
      // A fresh id per invitation: sending again (a new invitation) is a new message.
      id: newDeliveryId('invitation'),
      to: [email],
      ...renderInvitation(link, details),
    });
    if (!sent.accepted.some((a) => a.toLowerCase() === email.toLowerCase())) {
      throw new Error('the SMTP server did not accept the invitee as a recipient');
    }
  };
}

/**
 * The admin waits for the answer while the email goes out, so an SMTP server that does not
 * answer is given up on sooner than the alert queue's (which retries in the background).
 */
export const invitationEmailTimeouts: EmailTimeouts = {
  connectionMs: 5_000,
  greetingMs: 5_000,
  socketMs: 10_000,
  dnsMs: 5_000,
};

export interface InvitationEmailSettings {
  smtpUrl: string | undefined;
  emailFrom: string | undefined;
}

/**
 * Invitations by email when the alert email settings are there (ALERT_SMTP_URL and
 * ALERT_EMAIL_FROM); otherwise undefined, and admins send the link themselves.
 */
export function invitationSenderFromSettings(
  settings: InvitationEmailSettings,
  publicOrigin: string,
  timeouts: Partial<EmailTimeouts> = {},
): SendInvitation | undefined {
  if (!settings.smtpUrl || !settings.emailFrom) return undefined;
  return invitationSender(
    createEmailSender({
      smtp: settings.smtpUrl,
      from: settings.emailFrom,
      publicOrigin,
      timeouts: { ...invitationEmailTimeouts, ...timeouts },
    }),
  );
}
