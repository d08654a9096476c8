// The zero-set-up FactorStore: one JSON file in DATA_DIR, for a single BFF replica. Changes
// run one at a time in-process and each replaces the file in one rename, so a crash leaves
// either the old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import {
  type BeforeWrite,
  checkPasskeyUse,
  type FactorStore,
  MAX_PASSKEYS_PER_PERSON,
  noFactors,
  oldestFirst,
  type PersonFactors,
  type StoredPasskey,
  sealedTotpSecretSchema,
  storablePasskey,
  storableTotpSecret,
  storedPasskeySchema,
} from './factor-store';

export const SECOND_FACTORS_FILE = 'second-factors.json';

const secondFactorsFileSchema = z
  .strictObject({
    version: z.literal(1),
    people: z.record(
      z.string(),
      z.strictObject({
        passkeys: z.array(storedPasskeySchema).max(MAX_PASSKEYS_PER_PERSON),
        totpDisabled: z.boolean(),
        totpSecret: sealedTotpSecretSchema.optional(),
      }),
    ),
  })
  .refine((file) => {
    const ids = Object.values(file.people).flatMap((person) => person.passkeys.map((p) => p.id));
    return new Set(ids).size === ids.length;
  }, 'a credential id is enrolled twice');

type People = Map<string, PersonFactors>;

export class FileFactorStore implements FactorStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private people: People,
    private written: string,
  ) {}

  /** Reads `<dir>/second-factors.json` (none yet is an empty store); throws if it is not valid. */
  static async open(dir: string): Promise<FileFactorStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, SECOND_FACTORS_FILE);
    const people = await readPeople(path);
    return new FileFactorStore(path, people, serialise(people));
  }

  async get(email: string): Promise<PersonFactors> {
    const person = this.people.get(email);
    if (!person) return noFactors();
    const copy = structuredClone(person);
    copy.passkeys.sort(oldestFirst);
    return copy;
  }

  async addPasskey(
    email: string,
    passkey: StoredPasskey,
    audited?: BeforeWrite,
  ): Promise<'added' | 'duplicate' | 'too_many'> {
    const storable = storablePasskey(passkey);
    return this.change(audited, (people) => {
      for (const person of people.values()) {
        if (person.passkeys.some((p) => p.id === storable.id)) return 'duplicate';
      }
      const person = personIn(people, email);
      if (person.passkeys.length >= MAX_PASSKEYS_PER_PERSON) return 'too_many';
      person.passkeys.push(storable);
      return 'added';
    });
  }

  async renamePasskey(
    email: string,
    id: string,
    name: string,
    audited?: BeforeWrite,
  ): Promise<StoredPasskey | undefined> {
    // Called by `change` only when the file changes (a new name), handed the name it had, read
    // in the same turn of the queue as the rename.
    let was = '';
    return this.change(audited && (() => audited(was)), (people) => {
      const passkey = people.get(email)?.passkeys.find((p) => p.id === id);
      if (!passkey) return undefined;
      was = passkey.name;
      passkey.name = name;
      return structuredClone(passkey);
    });
  }

  async removePasskey(
    email: string,
    id: string,
    audited?: BeforeWrite,
  ): Promise<'removed' | 'not_found' | 'last_factor'> {
    return this.change(audited, (people) => {
      const person = people.get(email);
      const index = person?.passkeys.findIndex((p) => p.id === id) ?? -1;
      if (!person || index < 0) return 'not_found';
      if (person.totpDisabled && person.passkeys.length <= 1) return 'last_factor';
      person.passkeys.splice(index, 1);
      return 'removed';
    });
  }

  async setTotpDisabled(
    email: string,
    disabled: boolean,
    audited?: BeforeWrite,
  ): Promise<'ok' | 'unchanged' | 'no_passkey'> {
    return this.change(audited, (people) => {
      const person = personIn(people, email);
      if (disabled && person.passkeys.length === 0) return 'no_passkey';
      if (person.totpDisabled === disabled) return 'unchanged';
      person.totpDisabled = disabled;
      return 'ok';
    });
  }

  async setTotpSecret(email: string, sealed: string, audited?: BeforeWrite): Promise<'ok'> {
    storableTotpSecret(sealed);
    return this.change(audited, (people) => {
      const person = personIn(people, email);
      person.totpSecret = sealed;
      person.totpDisabled = false;
      return 'ok' as const;
    });
  }

  async resealTotpSecret(email: string, from: string, to: string): Promise<boolean> {
    storableTotpSecret(to);
    return this.change(undefined, (people) => {
      const person = people.get(email);
      if (person?.totpSecret !== from) return false;
      person.totpSecret = to;
      return true;
    });
  }

  async recordUse(email: string, id: string, counter: number, at: number): Promise<boolean> {
    checkPasskeyUse(counter, at);
    return this.change(undefined, (people) => {
      const passkey = people.get(email)?.passkeys.find((p) => p.id === id);
      if (!passkey) return false;
      passkey.counter = Math.max(passkey.counter, counter);
      passkey.lastUsedAt = Math.max(passkey.lastUsedAt ?? at, at);
      return true;
    });
  }

  async forget(email: string): Promise<number> {
    return this.change(undefined, (people) => {
      const dropped = people.get(email)?.passkeys.length ?? 0;
      people.delete(email);
      return dropped;
    });
  }

  /**
   * Runs `apply` on a copy of everyone's factors once every earlier change has finished. If the
   * copy differs from what is on disk it is written (after `audited`, which may refuse it), and
   * only once written does `get` see it; a failed write changes nothing.
   */
  private change<T>(audited: BeforeWrite, apply: (draft: People) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const draft = structuredClone(this.people);
      const result = apply(draft);
      for (const [email, person] of draft) {
        if (
          person.passkeys.length === 0 &&
          !person.totpDisabled &&
          person.totpSecret === undefined
        ) {
          draft.delete(email);
        }
      }
      const text = serialise(draft);
      if (text !== this.written) {
        await audited?.(String(result));
        await writeAtomically(this.path, text);
        this.people = draft;
        this.written = text;
      }
      return result;
    });
    this.queue = run.catch(() => {});
    return run;
  }
}

function personIn(people: People, email: string): PersonFactors {
  let person = people.get(email);
  if (!person) {
    person = noFactors();
    people.set(email, person);
  }
  return person;
}

/** The file's people by email (none when there is no file); throws, naming it, if it is not valid. */
export async function readPeople(path: string): Promise<People> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  // Neither message quotes the file: a parser's or a schema's own message could.
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON`);
  }
  const parsed = secondFactorsFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `${path} is not a valid second-factors file (expected version 1 and people by email, each with passkeys, totpDisabled and perhaps a sealed totpSecret, no credential id twice)`,
    );
  }
  return new Map(Object.entries(parsed.data.people));
}

function serialise(people: People): string {
  const file = { version: 1 as const, people: Object.fromEntries(people) };
  // Never write what `open` would refuse: the next start-up would fail.
  if (!secondFactorsFileSchema.safeParse(file).success) {
    throw new Error('refusing to write an invalid second-factors file');
  }
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Writes a temp file beside the target, fsyncs it, renames it over the target, fsyncs the folder. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const file = await open(temp, 'wx', 0o600);
    try {
      await file.writeFile(text, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // So the rename itself survives a power cut.
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
