import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryIdSchema } from './delivery-id';
import type { EmailSender } from './email-sender';
import { invitationSender, renderInvitation } from './invitation-email';

const link = 'https://console.example.test/join#abc_DEF-123';

describe('renderInvitation', () => {
  it('says who invited them, the role, the link and the expiry in UTC, in both parts', () => {
    const { subject, text, html } = renderInvitation(link, {
      role: 'finance',
      expiresAt: '2026-12-04T09:30:00.000Z',
      invitedBy: 'ana@example.test',
    });
    expect(subject).not.toContain('abc_DEF');
    expect(text).toContain(
      'ana@example.test invited you to Card Console as a member of the finance team.',
    );
    expect(text).toContain(`\n${link}\n`);
    expect(text).toContain('until 4 December 2026 at 09:30 UTC');
    expect(html).toContain(`<a href="${link}">`);
    expect(html).toContain('until 4 December 2026 at 09:30 UTC');
  });

  it('escapes what it puts in the HTML and keeps line breaks out of the text', () => {
    const { text, html } = renderInvitation(`${link}"><script>`, {
      role: 'admin',
      expiresAt: '2026-12-04T09:30:00.000Z',
      invitedBy: '<b>ana</b>@example.test\r\nBcc: x@y',
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>ana');
    expect(html).toContain('&lt;b&gt;ana&lt;/b&gt;@example.test');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(text).toContain('<b>ana</b>@example.test Bcc: x@y invited you');
  });

  it('refuses an expiry that is not a date', () => {
    expect(() =>
      renderInvitation(link, { role: 'admin', expiresAt: 'soon', invitedBy: 'a@example.test' }),
    ).toThrow(RangeError);
  });
});

describe("an invitation's delivery id", () => {
  it('is one the email sender accepts, every time: a UUID whose digit groups read as a card number is drawn again', async () => {
    // A few UUIDs in a hundred read as a card number (the matcher joins digit groups across
    // `-`); sent as they were drawn, those invitations were refused by the sender.
    const plain = Array.from({ length: 3_000 }, () => `invitation.${randomUUID()}`);
    expect(plain.filter((id) => !deliveryIdSchema.safeParse(id).success).length).toBeGreaterThan(0);
    const ids: string[] = [];
    // The sender as the real one checks ids (email-sender.ts `sendMessage`).
    const sender: EmailSender = {
      send: () => Promise.reject(new Error('not used')),
      async sendRendered(message) {
        ids.push(deliveryIdSchema.parse(message.id));
        return { messageId: '<m@example.test>', accepted: [...message.to], rejected: [] };
      },
      close: () => {},
    };
    const send = invitationSender(sender);
    const details = {
      role: 'finance' as const,
      expiresAt: '2026-12-04T09:30:00.000Z',
      invitedBy: 'a@example.test',
    };
    for (let i = 0; i < 3_000; i++) await send('bo@example.test', link, details);
    expect(ids).toHaveLength(3_000);
    for (const id of ids) expect(id).toMatch(/^invitation\.[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
