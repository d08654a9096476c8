// The service's fixed value lists, free of any zod import so the SPA's first download can use
// them without pulling in the schema library.

export const cardStatuses = ['active', 'paused', 'inactive', 'closed'] as const;
export type CardStatus = (typeof cardStatuses)[number];

export const cardSortFields = ['createdAt', 'name'] as const;
export type CardSortField = (typeof cardSortFields)[number];

export const utilizationPresets = ['daily', 'weekly', 'monthly', 'yearly', 'collective'] as const;
export type UtilizationPreset = (typeof utilizationPresets)[number];

export const transactionStatuses = [
  'pending',
  'canceled',
  'failed',
  'settled',
  'declined',
  'refund',
  'reversed',
  'returned',
  'dispute',
] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];
