import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/app-error';
import { chartFromCsv } from './chart-csv';

/** The 400's sentence for a file that is refused. */
function refusal(text: string): string {
  try {
    chartFromCsv(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
  throw new Error('the file was accepted');
}

/** Bytes as the BFF's UTF-8 text body reader turns them into a string. */
const asReceived = (bytes: Buffer) => bytes.toString('utf8');

describe('chartFromCsv: the lines it names are the lines of the file', () => {
  it('counts the blank lines before a faulty row', () => {
    expect(refusal('Code,Name\n\n\n9800,Good\n\n,Missing code\n')).toBe(
      'Nothing was imported: line 6: code is missing.',
    );
  });

  it('counts blank lines in a Windows (CRLF) file, and blank lines before the header', () => {
    expect(refusal('\r\nCode,Name\r\n\r\n9800,Good\r\n9800,Again\r\n')).toBe(
      'Nothing was imported: line 5: code 9800 is also on line 4.',
    );
  });

  it('counts the lines inside a quoted field, whichever line break the file uses', () => {
    for (const br of ['\n', '\r\n', '\r']) {
      const csv = ['Code,Name', '9800,"Travel', 'and meals"', '', 'BAD 1!,Broken', ''].join(br);
      expect(refusal(csv), JSON.stringify(br)).toMatch(
        /^Nothing was imported: line 2: name .*; line 5: code is not valid/,
      );
    }
  });

  it('names a row spanning lines by the line it starts on', () => {
    expect(refusal('Code,Name\n\n"98\n00",\n')).toBe(
      'Nothing was imported: line 3: code is not valid (use letters, digits, ".", "-", "/" and spaces).',
    );
  });

  it('says what is wrong in a sentence: a missing code, a missing name, a bad code', () => {
    expect(refusal('code,name\n,Nameless\n6100,\n6100 !,Bad\n6200,  \n')).toBe(
      'Nothing was imported: line 2: code is missing; line 3: name is missing; line 4: code is not valid (use letters, digits, ".", "-", "/" and spaces); line 5: name is missing.',
    );
    expect(refusal(`code,name\n6100,${'x'.repeat(101)}\n`)).toBe(
      'Nothing was imported: line 2: name must be at most 100 characters.',
    );
  });

  it('takes a good file whatever its blank lines', () => {
    expect(chartFromCsv('\n*Code,*Name\n\n6100, Meals \r\n\r\n6200,"Bank, fees"\n')).toEqual([
      { code: '6100', name: 'Meals' },
      { code: '6200', name: 'Bank, fees' },
    ]);
  });
});

describe('chartFromCsv: only UTF-8 text', () => {
  it("refuses Excel's Windows-1252 CSV, naming the line, rather than import U+FFFD in the names", () => {
    const windows1252 = Buffer.from('Code,Name\n9810,Caf\xe9 et d\xe9placements\n', 'latin1');
    expect(refusal(asReceived(windows1252))).toBe(
      'Nothing was imported: the file is not UTF-8 text (line 2 has characters that could not be read). In Excel, save it as "CSV UTF-8 (Comma delimited)" and import that file.',
    );
  });

  it('refuses text posted with a replacement character in it, and a UTF-16 file', () => {
    expect(refusal('Code,Name\n9810,Caf\uFFFD\n')).toMatch(/not UTF-8 text \(line 2/);
    const utf16 = Buffer.from('\uFEFFCode,Name\n9810,Café\n', 'utf16le');
    expect(refusal(asReceived(utf16))).toMatch(/not UTF-8 text \(line 1/);
    expect(refusal(asReceived(Buffer.from('Code,Name\n9810,Café\n', 'utf16le')))).toMatch(
      /not UTF-8 text/,
    );
  });

  it('takes UTF-8, with or without the byte order mark Excel writes', () => {
    const text = 'Code,Name\r\n9810,Café et déplacements\r\n';
    const expected = [{ code: '9810', name: 'Café et déplacements' }];
    expect(chartFromCsv(asReceived(Buffer.from(text, 'utf8')))).toEqual(expected);
    expect(chartFromCsv(asReceived(Buffer.from(`\uFEFF${text}`, 'utf8')))).toEqual(expected);
  });
});
