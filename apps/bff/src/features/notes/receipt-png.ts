import { checkPixels, damaged } from './receipt-refused';

// PNG, by an allow-list of chunks read up to IEND: the critical ones, and the ancillary ones that
// decide how the picture looks (transparency, gamma, chromaticities, sRGB, an ICC profile,
// significant bits, HDR colour (cICP, mDCV, cLLI), background and pixel size). Everything else
// goes: text, EXIF and time chunks, private and unknown ones, animation (the still picture
// stays), and whatever follows IEND. An unknown critical chunk means a picture no viewer can
// show: damaged.
const KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'cICP',
  'mDCV',
  'cLLI',
  'bKGD',
  'pHYs',
]);

/** A chunk whose type starts with an upper-case letter (bit 5 of its first byte clear). */
const isCritical = (input: Buffer, typeAt: number) => ((input[typeAt] as number) & 0x20) === 0;

/**
 * The kept chunks of a PNG. file-type found IHDR first (13 bytes: width and height first), or
 * Apple's CgBI, an unknown critical chunk refused below. A chunk cut short is damaged; a read
 * past the end of the buffer is too.
 */
export function stripPng(input: Buffer): Buffer {
  checkPixels(input.readUInt32BE(16), input.readUInt32BE(20));
  const kept: Buffer[] = [input.subarray(0, 8)];
  let at = 8;
  for (;;) {
    const type = input.toString('latin1', at + 4, at + 8);
    const end = at + 12 + input.readUInt32BE(at);
    if (end > input.length) damaged();
    if (KEPT.has(type)) kept.push(input.subarray(at, end));
    else if (isCritical(input, at + 4)) damaged();
    if (type === 'IEND') return Buffer.concat(kept);
    at = end;
  }
}
