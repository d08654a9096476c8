// What other features may use of the transactions feature: its CSV cells and lines, the export's
// file names, streaming and slot, local times, merchant categories and the API transaction.
export { type CsvRowOptions, csvColumns, exportText, toCsvRecord } from './csv-row';
export { csvLines } from './csv-text';
export { exportContentDisposition, exportDays } from './export-file-name';
export { type ExportStreamContext, exportStreamContext, withExportSlot } from './export-response';
export type { ExportRows } from './export-service';
export { createLocalTimes } from './local-time';
export { allMerchantCategories, merchantCategoryName } from './merchant-categories';
export { streamCsv } from './stream-csv';
export { toApiTransaction } from './transaction-mapper';
