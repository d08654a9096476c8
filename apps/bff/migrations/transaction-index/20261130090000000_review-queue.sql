-- The review queue (issue 46): a transaction's detail asks where it stands in its list, naming
-- it by id alone (the address of the detail has no sub account), and the category its merchant
-- was last booked to. Both read one row or one merchant's rows through these, not the table.

-- Up Migration

CREATE INDEX index_transaction_id ON index_transaction (id);
CREATE INDEX index_transaction_merchant ON index_transaction (lower(merchant));

-- Down Migration

DROP INDEX index_transaction_merchant;
DROP INDEX index_transaction_id;
