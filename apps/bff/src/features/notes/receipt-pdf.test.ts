// PDF receipts that can act when opened or carry other files are refused, however the names are
// spelt or wherever they hide; ordinary ones are kept byte for byte.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { deflatedThenDamaged, objectStream, pdf, streamObject } from '../../test/crafted-receipts';
import { pdfReceipt } from '../../test/receipt-files';
import { inspectReceipt, ReceiptRefusedError } from './receipt-file';

/**
 * Every inflating done since `counted` began: how many, and the most each can have cost (what it
 * yielded, or when it failed the most it was let yield).
 */
const inflating = vi.hoisted(() => ({ calls: 0, bytes: 0 }));
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  const inflateSync = (data: Buffer, options?: import('node:zlib').ZlibOptions): Buffer => {
    inflating.calls++;
    try {
      const out = zlib.inflateSync(data, options);
      inflating.bytes += out.length;
      return out;
    } catch (error) {
      inflating.bytes += options?.maxOutputLength ?? 0;
      throw error;
    }
  };
  return { ...zlib, inflateSync };
});

async function counted(input: Buffer) {
  inflating.calls = 0;
  inflating.bytes = 0;
  const said = await verdict(input);
  return { verdict: said, calls: inflating.calls, bytes: inflating.bytes };
}

const MB = 1024 * 1024;

async function verdict(input: Buffer): Promise<string> {
  try {
    const { mediaType, bytes } = await inspectReceipt(input);
    expect(mediaType).toBe('application/pdf');
    expect(bytes).toEqual(input);
    return 'kept';
  } catch (error) {
    if (error instanceof ReceiptRefusedError) return error.reason;
    throw error;
  }
}

/** A compressed picture: deflated bytes that do not start like objects, holding `text`. */
const picture = (text: string) =>
  streamObject(
    5,
    '/Type /XObject /Subtype /Image /Width 4 /Height 4 /Filter /FlateDecode',
    deflateSync(Buffer.concat([Buffer.from([0xff, 0x00, 0x7f]), Buffer.from(text, 'latin1')])),
  );

/**
 * An object stream holding `objects` (numbered from 10), its bytes written in rows of `rowBytes`
 * under a PNG predictor of row type `type` with pixels of `pixelBytes`, then Flate-compressed:
 * what a reader undoes with the stream's `/DecodeParms` (`params`).
 */
function predictedObjectStream(
  number: number,
  objects: string[],
  params: string,
  rowBytes: number,
  pixelBytes: number,
  type: number,
): Buffer {
  let offset = 0;
  const header = objects.map((o, i) => {
    const entry = `${10 + i} ${offset}`;
    offset += o.length + 1;
    return entry;
  });
  const head = `${header.join(' ')}\n`;
  let body = Buffer.from(`${head}${objects.join('\n')}\n`, 'latin1');
  body = Buffer.concat([body, Buffer.alloc((rowBytes - (body.length % rowBytes)) % rowBytes, 32)]);
  const rows: Buffer[] = [];
  for (let at = 0; at < body.length; at += rowBytes) {
    const row = Buffer.alloc(rowBytes + 1);
    row[0] = type;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= pixelBytes ? (body[at + i - pixelBytes] as number) : 0;
      const up = at > 0 ? (body[at + i - rowBytes] as number) : 0;
      const upLeft =
        at > 0 && i >= pixelBytes ? (body[at + i - rowBytes - pixelBytes] as number) : 0;
      const p = left + up - upLeft;
      const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
      const paeth = a <= b && a <= c ? left : b <= c ? up : upLeft;
      const base = [0, left, up, (left + up) >>> 1, paeth][type] as number;
      row[i + 1] = ((body[at + i] as number) - base) & 0xff;
    }
    rows.push(row);
  }
  return streamObject(
    number,
    `/Type /ObjStm /N ${objects.length} /First ${head.length} /Filter /FlateDecode /DecodeParms << ${params} >>`,
    deflateSync(Buffer.concat(rows)),
  );
}

/** What a stream object's compressed data inflates to, as text, no predictor undone. */
function unpredictedNames(stream: Buffer): string {
  const start = stream.indexOf('stream\n') + 7;
  const end = stream.lastIndexOf('\nendstream');
  return inflateSync(stream.subarray(start, end)).toString('latin1');
}

describe('a PDF receipt', () => {
  it('is kept as sent when it only shows pages, links and a destination to open at', async () => {
    expect(await verdict(pdfReceipt())).toBe('kept');
    const ordinary = pdf('/OpenAction [3 0 R /Fit] /PageMode /UseOutlines', [
      '4 0 obj\n<< /Type /Annot /Subtype /Link /A << /S /URI /URI (https://example.com/) >> >>\nendobj\n',
      '6 0 obj\n<< /OpenAction\n\t[3 0 R /XYZ null null 0] >>\nendobj\n',
      objectStream(7, ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']),
      streamObject(8, '/Filter /FlateDecode', deflateSync('BT /F1 12 Tf (Total 42.00) Tj ET')),
      picture('/JS /AA /JS('),
    ]);
    expect(await verdict(ordinary)).toBe('kept');
  });

  it('is refused for each kind of active content in a dictionary', async () => {
    for (const entry of [
      '/Names << /JavaScript 9 0 R >>',
      '/AA << /O << /S /JavaScript /JS (app.alert(1)) >> >>',
      '/OpenAction << /S /JavaScript /JS 9 0 R >>',
      '/OpenAction 9 0 R',
      '/OpenAction<</S/GoTo/D[3 0 R/Fit]>>',
      '/JS (x)',
      '/AA 9 0 R',
      '/A << /S /Launch /F (calc.exe) >>',
      '/A << /S /GoToE /T << /R /C >> >>',
      '/A << /S /GoToR /F (\\\\\\\\host\\\\share\\\\x.pdf) /D [0 /Fit] >>',
      '/A << /S /SubmitForm /F (https://example.com/) >>',
      '/A << /S /ImportData /F (data.fdf) >>',
      '/A << /S /Rendition /R 9 0 R >>',
      '/AcroForm << /XFA 9 0 R >>',
      '/Names << /EmbeddedFiles 9 0 R >>',
      '/Type /EmbeddedFile',
      '/Annots [<< /Subtype /RichMedia >>]',
    ]) {
      expect(await verdict(pdf(entry)), entry).toBe('active');
    }
  });

  it('reads names as a reader does: #-escapes decoded, any white space or delimiter ending them', async () => {
    for (const entry of [
      '/S /J#61vaScript',
      '/S /#4a#61#76#61#53#63#72#69#70#74',
      '/#4fpenAction<<>>',
      '/J#53(x)',
      '/#41#41<<>>',
      '/Launch\0',
      '/Launch\f',
      '/Launch%comment',
      '/Launch{',
    ]) {
      expect(await verdict(pdf(entry)), entry).toBe('active');
    }
    // A longer name is another name.
    for (const entry of [
      '/JavaScripts (x)',
      '/AAA 1',
      '/JS2 (x)',
      '/OpenActions 9 0 R',
      '/J#6vaScript',
    ]) {
      expect(await verdict(pdf(entry)), entry).toBe('kept');
    }
  });

  it('finds active content inside compressed object streams', async () => {
    const hidden = [
      ['<< /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>'],
      ['<< /Type /Action /S /Launch /F (cmd.exe) >>'],
      ['<< /Type /Catalog >>', '<< /AA << /O 12 0 R >> >>'],
      ['<< /JS (x) >>'],
      ['<< /OpenAction 3 0 R >>'],
    ];
    for (const objects of hidden) {
      expect(await verdict(pdf('', [objectStream(4, objects)])), objects.join()).toBe('active');
      // White space and comments before the numbers do not hide it.
      const commented = objectStream(4, objects, '  %comment\r\n\t% more\n');
      expect(await verdict(pdf('', [commented])), objects.join()).toBe('active');
    }
    expect(await verdict(pdf('', [objectStream(4, ['<< /OpenAction [3 0 R /Fit] >>'])]))).toBe(
      'kept',
    );
    // Object streams whose content a reader starts with a sign, a point, or nothing but spaces.
    for (const start of ['+10 0 ', '-1 0 ', '.5 ', ' '.repeat(300_000)]) {
      const data = deflateSync(`${start}\n<< /S /JavaScript >>`);
      const object = streamObject(4, '/Type /ObjStm /N 1 /First 6 /Filter /FlateDecode', data);
      expect(await verdict(pdf('', [object])), start.slice(0, 8)).toBe('active');
    }
  });

  it('reads object streams under a PNG predictor as a reader does, with the rows the file names', async () => {
    const action = '<< /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>';
    const launch = '<< /Type /Action /S /Launch /F (calc.exe) >>';
    const files = '<< /Names << /EmbeddedFiles << /Names [(a.exe) 9 0 R] >> >> >>';
    // Each row type (none, sub, up, average, Paeth), row widths of 1 to 7 bytes, pixels of 1 to 3.
    for (const [objects, columns, colors, type] of [
      [[action], 1, 1, 0],
      [[launch], 4, 1, 2],
      [[files], 3, 1, 1],
      [[action], 7, 1, 3],
      [['<< /Type /Font >>', launch], 2, 3, 4],
    ] as const) {
      const params = `/Predictor 12 /Columns ${columns}${colors === 1 ? '' : ` /Colors ${colors}`}`;
      const stream = predictedObjectStream(4, [...objects], params, columns * colors, colors, type);
      expect(await verdict(pdf('', [stream])), `${params} type ${type}`).toBe('active');
      // Without a predictor read, the row bytes hid it (the check before this one kept these).
      expect(unpredictedNames(stream)).not.toContain('/JavaScript');
    }
    // Ordinary: fonts in a predicted object stream, beside a cross-reference stream's rows.
    const fonts = predictedObjectStream(
      4,
      ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
      '/Predictor 12 /Columns 5',
      5,
      1,
      2,
    );
    const xref = streamObject(
      6,
      '/Type /XRef /W [1 3 1] /Filter /FlateDecode /DecodeParms << /Columns 5 /Predictor 12 >>',
      deflateSync(Buffer.from([2, 1, 0, 0, 15, 0, 2, 0, 0, 1, 32, 0, 2, 0, 0, 0, 200, 0])),
    );
    expect(await verdict(pdf('', [fonts, xref, picture('/JS /AA')]))).toBe('kept');
  });

  it('refuses object streams it cannot read as a reader would: other filters, TIFF predictors, references', async () => {
    const action = '<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>';
    const body = Buffer.from(`10 0\n${action}\n`, 'latin1');
    const header = '/Type /ObjStm /N 1 /First 5';
    // Hex, or a Flate stream first written as ASCII85: a reader decodes them, this does not.
    const hex = streamObject(
      4,
      `${header} /Filter /ASCIIHexDecode`,
      Buffer.from(`${body.toString('hex')}>`),
    );
    expect(await verdict(pdf('', [hex]))).toBe('active');
    const chained = streamObject(4, `${header} /Filter [/A85 /Fl]`, Buffer.from('garbled~>'));
    expect(await verdict(pdf('', [chained]))).toBe('active');
    // TIFF's predictor, and a predictor's numbers or a filter given by reference.
    for (const dict of [
      '/Filter /FlateDecode /DecodeParms << /Predictor 2 /Columns 1 >>',
      '/Filter /FlateDecode /DecodeParms 8 0 R',
      '/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 8 0 R >>',
      '/Filter 8 0 R',
    ]) {
      const stream = streamObject(4, `${header} ${dict}`, deflateSync(body));
      expect(await verdict(pdf('', [stream])), dict).toBe('active');
    }
    // Without object streams, a picture under any filter is kept: nothing a reader takes as an
    // object comes out of it.
    const hexPicture = streamObject(5, '/Subtype /Image /Filter /AHx', Buffer.from('ff00>'));
    const tiff = streamObject(
      6,
      '/Subtype /Image /Filter /FlateDecode /DecodeParms << /Predictor 2 /Colors 3 /Columns 8 0 R >>',
      deflateSync(Buffer.from([0xff, 1, 2])),
    );
    expect(await verdict(pdf('', [hexPicture, tiff]))).toBe('kept');
  });

  it('does not take chance bytes in compressed data for a short name', async () => {
    // Bytes that read /JS and /AA, in a stream that inflates to no objects.
    const data = Buffer.concat([
      deflateSync(Buffer.from([0xff, 1, 2])),
      Buffer.from('/JS (/AA <<'),
    ]);
    const raw = streamObject(5, '/Filter /FlateDecode', data);
    expect(await verdict(pdf('', [raw]))).toBe('kept');
    // A stream that is no zlib data is searched as it is.
    const plain = streamObject(5, '', Buffer.from('/JS (x)'));
    expect(await verdict(pdf('', [plain]))).toBe('active');
    // Long names are looked for everywhere, compressed data too.
    const long = Buffer.concat([deflateSync(Buffer.from([0xff])), Buffer.from('/JavaScript ')]);
    expect(await verdict(pdf('', [streamObject(5, '/Filter /FlateDecode', long)]))).toBe('active');
    // After a compressed stream, short names count again.
    expect(await verdict(pdf('', [raw, '9 0 obj\n<< /AA << >> >>\nendobj\n']))).toBe('active');
    // So do they before one, and where a stream keyword has no end of line.
    expect(await verdict(pdf('/AA 9 0 R', [raw]))).toBe('active');
    const noEol = Buffer.from('<< /Length 9 >>stream/JS (x)\nendstream\n');
    expect(await verdict(pdf('', [noEol]))).toBe('active');
  });

  it('searches a damaged stream as far as a reader can, and refuses a zip bomb and encrypted object streams', async () => {
    // A stream damaged part-way is searched as far as it inflates, as a reader reads it (stored
    // blocks: a short name in them is no more than chance bytes to the search of the file).
    const objects = (text: string) =>
      streamObject(
        4,
        '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode',
        deflatedThenDamaged(text),
      );
    const padding = ' '.repeat(70_000);
    expect(await verdict(pdf('', [objects(`1 0 << /JS (x) >>${padding}`)]))).toBe('active');
    expect(await verdict(pdf('', [objects(`1 0 ${padding}<< /JS (x) >>`)]))).toBe('kept');
    const headDamaged = Buffer.from(deflateSync('1 0 << /JS (x) >>', { level: 0 }));
    headDamaged[5] = (headDamaged[5] as number) ^ 0xff;
    const unreadable = streamObject(4, '/Filter /FlateDecode', headDamaged);
    expect(await verdict(pdf('', [unreadable]))).toBe('kept');
    const bomb = deflateSync(
      Buffer.concat([Buffer.from('1 0 '), Buffer.alloc(65 * 1024 * 1024, 0x20)]),
    );
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(
      await verdict(
        pdf('', [streamObject(4, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', bomb)]),
      ),
    ).toBe('active');
    const encrypted = (dict: string) =>
      pdf('', [
        streamObject(4, dict, Buffer.from([0x78, 0x9c, 0x01, 0x02, 0x03])),
        '5 0 obj\n<< /Filter /Standard /V 2 >>\nendobj\ntrailer\n<< /Encrypt 5 0 R >>\n',
      ]);
    expect(await verdict(encrypted('/Type /ObjStm /N 1 /First 4'))).toBe('active');
    expect(await verdict(encrypted('/N 1 /First 4'))).toBe('active');
    expect(await verdict(encrypted('/Type /ObjStm /N 1'))).toBe('active');
    expect(await verdict(encrypted('/Subtype /Image'))).toBe('kept');
  });

  it('tells Flate data by its whole zlib header, and searches the rest as it is', async () => {
    // Method 8 with a preset dictionary, a wrong check, another method: none of them zlib data.
    for (const header of [
      [0x78, 0x20],
      [0x78, 0x00],
      [0x77, 0x09],
    ]) {
      const data = Buffer.concat([Buffer.from(header), Buffer.from(' /JS (x)')]);
      expect(await verdict(pdf('', [streamObject(5, '', data)])), String(header)).toBe('active');
    }
    // Flate data whatever the end of line after `stream`, or with none, or never ended.
    const flate = Buffer.concat([deflateSync(Buffer.from([0xff])), Buffer.from('/JS (x)')]);
    for (const eol of ['\r\n', '\n', '\r', '']) {
      const object = Buffer.concat([
        Buffer.from(`5 0 obj\n<< /Length ${flate.length} >>\nstream${eol}`),
        flate,
        Buffer.from('\nendstream\nendobj\n'),
      ]);
      for (const pad of ['', ' ', '  ', '   ', '    ', '     ']) {
        expect(await verdict(pdf(pad, [object])), JSON.stringify([eol, pad])).toBe('kept');
      }
    }
    const unended = Buffer.concat([Buffer.from('5 0 obj\n<< >>\nstream\n'), flate]);
    expect(await verdict(Buffer.concat([pdf(), unended]))).toBe('kept');
    // `endstream` starts no stream, whatever follows it.
    const afterEnd = '5 0 obj\n<< /Length 1 >>\nstream\nA\nendstream\nx^ /JS (x)\nendobj\n';
    expect(await verdict(pdf('', [afterEnd]))).toBe('active');
  });

  it('reads a compressed start past comments to tell objects from a picture', async () => {
    const compressed = (text: string) => streamObject(5, '/Filter /FlateDecode', deflateSync(text));
    // A comment, then no number: no objects, so chance bytes after it are not searched.
    expect(await verdict(pdf('', [compressed('%c\n<< /JS (x) >>')]))).toBe('kept');
    expect(await verdict(pdf('', [compressed('%c\r<< /JS (x) >>')]))).toBe('kept');
    expect(await verdict(pdf('', [compressed('%c\n1 0 << /JS (x) >>')]))).toBe('active');
    // A comment longer than the start read: nothing told, so searched whole.
    const long = compressed(`%${'c'.repeat(300_000)}\n1 0 << /JS (x) >>`);
    expect(await verdict(pdf('', [long]))).toBe('active');
  });

  it('refuses names at the very end of what it searches, and arrays after other names', async () => {
    expect(await verdict(Buffer.concat([pdf(), Buffer.from('/JS')]))).toBe('active');
    expect(await verdict(Buffer.concat([pdf(), Buffer.from('/JavaScript')]))).toBe('active');
    expect(await verdict(pdf('/Names << /JavaScript [(a) 9 0 R] >>'))).toBe('active');
    expect(await verdict(pdf('/OpenAction'))).toBe('active');
  });

  it('sums what all its object streams inflate to', async () => {
    const half = (n: number) => objectStream(n, [`<< /Pad (${'x'.repeat(40 * 1024 * 1024)}) >>`]);
    expect(await verdict(pdf('', [half(4)]))).toBe('kept');
    expect(await verdict(pdf('', [half(4), half(5)]))).toBe('active');
  }, 30_000);

  it('keeps a receipt of a few hundred streams, inflating each once or twice', async () => {
    const pages = Array.from({ length: 100 }, (_, page) => [
      objectStream(1000 + page, [`<< /Type /Page /Parent 2 0 R /Contents ${2000 + page} 0 R >>`]),
      streamObject(2000 + page, '/Filter /FlateDecode', deflateSync(`BT (Total ${page}.00) Tj ET`)),
      picture(`scan of page ${page} ${'\xff'.repeat(200_000)}`),
    ]).flat();
    const kept = await counted(pdf('', pages));
    expect(kept.verdict).toBe('kept');
    expect(kept.calls).toBeGreaterThanOrEqual(300);
    expect(kept.calls).toBeLessThanOrEqual(2 * 300);
    expect(kept.bytes).toBeLessThan(64 * MB);
  });

  it('bounds what it inflates, and refuses a file beyond the bounds, however many streams it holds', async () => {
    // Streams of a few hundred bytes whose starts inflate to about 245 KB each: 400 of them
    // would be 98 MB peeked at (the review's 10 MB file had 29,000).
    const flood = deflateSync(Buffer.alloc(264 * 1024, 'A'), { level: 9 });
    const floods = (n: number) =>
      Array.from({ length: n }, (_, i) => streamObject(10 + i, '/Filter /FlateDecode', flood));
    const peeked = await counted(pdf('', floods(400)));
    expect(peeked.bytes).toBeLessThanOrEqual(64 * MB);
    expect(peeked.verdict).toBe('active');
    // Streams that inflate to next to nothing still cost an inflating each: 2,000 at most.
    const tiny = (n: number) =>
      Array.from({ length: n }, (_, i) => streamObject(10 + i, '', deflateSync('q')));
    expect((await counted(pdf('', tiny(2000)))).verdict).toBe('kept');
    expect(await counted(pdf('', tiny(2001)))).toEqual({ verdict: 'active', calls: 0, bytes: 0 });
    // Damaged streams are retried to find how far they inflate: 16 of them at most (a short one
    // is inflated once).
    const broken = Buffer.from([0x78, 0x9c, 0xff]); // a block of no type
    const damaged = (n: number) =>
      Array.from({ length: n }, (_, i) => streamObject(10 + i, '', broken));
    expect((await counted(pdf('', damaged(16)))).verdict).toBe('kept');
    expect((await counted(pdf('', damaged(17)))).verdict).toBe('active');
    const retried = await counted(pdf('', damaged(2000)));
    expect(retried.verdict).toBe('active');
    expect(retried.calls).toBeLessThanOrEqual(17 * 10);
  });

  it('caps the retries over a damaged stream by what is left to inflate', async () => {
    // Objects, 60 MB of spaces, then a fault, then 1 MB more: each retry that finds the fault
    // could inflate the 60 MB again.
    const bomb = Buffer.concat([
      deflateSync(Buffer.concat([Buffer.from('1 0 '), Buffer.alloc(60 * MB, 0x20)]), {
        finishFlush: constants.Z_SYNC_FLUSH,
      }),
      Buffer.alloc(MB, 0xff),
    ]);
    const object = streamObject(4, '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', bomb);
    const retried = await counted(pdf('', [object]));
    expect(retried.bytes).toBeLessThanOrEqual(2 * 64 * MB);
    expect(retried.verdict).toBe('active');
  }, 30_000);

  it('holds little more than the file while it searches it: 2 million distinct names checked in a 32 MB heap', () => {
    // A process of its own, its heap capped: what a check holds at once, counted by V8 (the file
    // itself lies outside the heap). Each name kept took 135 MB: out of memory, the process
    // ends without a verdict.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const checker = new URL('./receipt-pdf.ts', import.meta.url).href;
    const run = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=32',
        '--import',
        tsx,
        '--input-type=module',
        '--eval',
        `
          const { checkPdf } = await import(${JSON.stringify(checker)});
          const file = Buffer.alloc(10 * 1024 * 1024, 0x20);
          let at = file.write('%PDF-1.4\\n', 0, 'latin1');
          let names = 0;
          while (at < file.length - 16) at += file.write('/' + (names++).toString(36), at, 'latin1');
          checkPdf(file);
          console.log(JSON.stringify({ names, verdict: 'kept' }));
        `,
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect(run.status).toBe(0);
    const { names, verdict } = JSON.parse(run.stdout);
    expect(verdict).toBe('kept');
    expect(names).toBeGreaterThan(2_000_000);
  }, 60_000);
});
