-- A mailed receipt remembers its message's Message-ID (decision 0118): a mail server answered
-- "try later" after some of a message's attachments were kept sends the whole message again,
-- with the same Message-ID; an attachment of it already in the inbox (the same bytes) is then not
-- kept twice. Null for uploads and for mail without a Message-ID.

-- Up Migration

ALTER TABLE receipt_inbox_item ADD COLUMN mail_message_id text;
CREATE INDEX receipt_inbox_item_mail_message ON receipt_inbox_item (owner, mail_message_id)
  WHERE mail_message_id IS NOT NULL;

-- Down Migration

DROP INDEX receipt_inbox_item_mail_message;
ALTER TABLE receipt_inbox_item DROP COLUMN mail_message_id;
