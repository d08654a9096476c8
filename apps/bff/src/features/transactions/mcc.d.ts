// The `mcc` package ships no types: what the BFF reads of it.
declare module 'mcc' {
  interface MerchantCategory {
    /** Four digits, e.g. "5812". */
    mcc: string;
    edited_description: string;
    combined_description: string;
    usda_description: string;
    irs_description: string;
  }
  const mcc: { all: readonly MerchantCategory[] };
  export default mcc;
}
