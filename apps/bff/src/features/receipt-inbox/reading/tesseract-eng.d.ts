// `@tesseract.js-data/eng` ships no types: a CommonJS module naming where its model lies.
declare module '@tesseract.js-data/eng' {
  const eng: { code: string; gzip: boolean; langPath: string };
  export default eng;
}
