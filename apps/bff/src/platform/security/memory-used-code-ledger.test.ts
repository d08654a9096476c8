import { MemoryUsedCodeLedger } from './totp';
import { usedCodeLedgerContract } from './used-code-ledger.contract';

usedCodeLedgerContract('MemoryUsedCodeLedger', async () => {
  const ledger = new MemoryUsedCodeLedger();
  return { a: ledger, b: ledger };
});
