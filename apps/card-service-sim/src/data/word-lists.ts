/** Small word lists the generator combines into names, merchants and counterparties. */
export const firstNames = [
  'Ava',
  'Liam',
  'Maya',
  'Noah',
  'Zoe',
  'Ethan',
  'Priya',
  'Lucas',
  'Sofia',
  'Omar',
  'Grace',
  'Mateo',
  'Hana',
  'Leo',
  'Chloe',
  'Ravi',
  'Nora',
  'Isaac',
  'Elena',
  'Kofi',
] as const;

export const lastNames = [
  'Nguyen',
  'Smith',
  'Garcia',
  'Okafor',
  'Kim',
  'Patel',
  'Rossi',
  'Johnson',
  'Silva',
  'Cohen',
  'Larsen',
  'Moreau',
  'Tanaka',
  'Brown',
  'Haddad',
  'Walsh',
  'Ortiz',
  'Fischer',
] as const;

export const cardPurposes = [
  '',
  '',
  '',
  ' (travel)',
  ' (software)',
  ' (events)',
  ' (office)',
] as const;

export const merchantAdjectives = [
  'Blue',
  'Oak',
  'Summit',
  'Harbor',
  'Northside',
  'Golden',
  'Pine',
  'Metro',
  'Silver',
  'Cedar',
  'Red Rock',
  'Lakeside',
  'Union',
  'Bright',
  'Urban',
  'Maple',
  'Granite',
  'Coastal',
  'Prairie',
] as const;

/** Merchant categories with their ISO 18245 merchant category codes. */
export const merchantCategories = [
  { mcc: '5812', nouns: ['Cafe', 'Bistro', 'Kitchen', 'Grill'] },
  { mcc: '5814', nouns: ['Burgers', 'Tacos', 'Noodles'] },
  { mcc: '4121', nouns: ['Rides', 'Taxi'] },
  { mcc: '4511', nouns: ['Air', 'Airways'] },
  { mcc: '7011', nouns: ['Hotel', 'Inn', 'Suites'] },
  { mcc: '5734', nouns: ['Software', 'Cloud', 'Labs'] },
  { mcc: '5943', nouns: ['Office Supply', 'Paper Co'] },
  { mcc: '4814', nouns: ['Telecom', 'Wireless'] },
  { mcc: '5541', nouns: ['Fuel', 'Gas'] },
  { mcc: '7399', nouns: ['Consulting', 'Services'] },
  { mcc: '5045', nouns: ['Computers', 'Electronics'] },
  { mcc: '4722', nouns: ['Travel'] },
] as const;

export const rawPrefixes = ['', '', 'SQ *', 'TST* ', 'PAYPAL *'] as const;

export const cities = [
  'SAN FRANCISCO CA',
  'NEW YORK NY',
  'AUSTIN TX',
  'SEATTLE WA',
  'CHICAGO IL',
  'DENVER CO',
  'BOSTON MA',
  'MIAMI FL',
] as const;

export const subAccountNames = [
  'Operations',
  'Marketing',
  'Engineering',
  'Sales',
  'Travel',
  'Facilities',
  'Finance',
  'People',
] as const;

export const counterparties = [
  'Acme Logistics',
  'Brightline Legal',
  'Northwind Supplies',
  'Contoso Cleaning',
  'Globex Staffing',
  'Initech Payroll',
  'Umbrella Insurance',
  'Stark Leasing',
] as const;

export const declineReasons = [
  'Insufficient funds',
  'Exceeds transaction size limit',
  'Exceeds utilization limit',
  'Card paused',
  'Merchant category blocked',
  'Suspected fraud',
] as const;

export const currencies = [
  { code: 'EUR', usdPerUnit: 1.08 },
  { code: 'GBP', usdPerUnit: 1.27 },
  { code: 'CAD', usdPerUnit: 0.74 },
  { code: 'JPY', usdPerUnit: 0.0067 },
  { code: 'MXN', usdPerUnit: 0.058 },
] as const;

export const timezones = [
  'America/New_York',
  'America/Chicago',
  'America/Los_Angeles',
  'UTC',
] as const;
