// What other features may use of the receipt inbox besides its api/ folder: the link (with the
// count of receipts that need the person) the Transactions screen shows in its header.
