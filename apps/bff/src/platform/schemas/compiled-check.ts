import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';

/**
 * A check of an upstream answer, defined by its zod schema and compiled from it: the zod
 * schema is turned into JSON Schema (`z.toJSONSchema`) once, and Ajv compiles that into a
 * function that checks the parsed JSON in place, without building a copy of every object as
 * zod's own parse does. A value the compiled check accepts is the answer, with the fields the
 * schema does not declare removed (as zod's `z.object` drops them). A value it refuses is
 * handed to zod, which decides and names the problems: a refusal always comes from the one
 * schema, and the compiled check only ever speeds up the common case. A schema JSON Schema
 * cannot express exactly (a refinement, a transform, a format without a pattern) is not
 * compiled: zod checks it every time.
 *
 * `check` may change the value it is given (unknown fields are deleted): pass it freshly
 * parsed JSON, never something shared.
 */
export type CompiledCheck<S extends z.ZodType> = (
  value: unknown,
) => z.ZodSafeParseResult<z.output<S>>;

const ajv = new Ajv({
  // Strip undeclared fields where the schema says so (marked below: zod's strip objects only).
  removeAdditional: true,
  // zod's regular expressions run without the `u` flag: so do these.
  unicodeRegExp: false,
  // Formats are checked by the pattern zod puts beside each (see `compilable`), not by name.
  validateFormats: false,
  allErrors: false,
  // zod's JSON Schema carries annotations Ajv's strict mode does not know.
  strict: false,
  code: { optimize: true },
});

const compiled = new WeakMap<z.ZodType, CompiledCheck<z.ZodType>>();

export function compileCheck<S extends z.ZodType>(schema: S): CompiledCheck<S> {
  const known = compiled.get(schema);
  if (known) return known as CompiledCheck<S>;
  const validate = toValidator(schema);
  const check: CompiledCheck<S> = validate
    ? (value) =>
        validate(value)
          ? { success: true, data: value as z.output<S> }
          : (schema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>)
    : (value) => schema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>;
  compiled.set(schema, check as CompiledCheck<z.ZodType>);
  return check;
}

/** Whether `compileCheck` compiled the schema (false: zod checks every value). */
export function isCompiled(schema: z.ZodType): boolean {
  return toJsonSchema(schema) !== undefined;
}

function toValidator(schema: z.ZodType): ValidateFunction | undefined {
  const json = toJsonSchema(schema);
  return json ? ajv.compile(json) : undefined;
}

/**
 * The schema as JSON Schema with the exact meaning zod gives it, or undefined when JSON
 * Schema cannot say the same thing.
 */
function toJsonSchema(schema: z.ZodType): Record<string, unknown> | undefined {
  let exact = true;
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, {
      target: 'draft-7',
      // What zod accepts (its output may differ only by dropped fields, handled below).
      io: 'input',
      unrepresentable: 'throw',
      override: (ctx) => {
        const def = ctx.zodSchema._zod.def as {
          type: string;
          checks?: { _zod: { def: { check: string } } }[];
          catchall?: z.ZodType;
        };
        // A refinement is not in the JSON Schema: this one cannot be compiled.
        if (def.checks?.some((c) => c._zod.def.check === 'custom')) exact = false;
        if (def.type === 'custom' || def.type === 'transform' || def.type === 'pipe') exact = false;
        const out = ctx.jsonSchema as Record<string, unknown>;
        if (out.format !== undefined && out.pattern === undefined) exact = false;
        if (def.type === 'object') {
          const catchall = def.catchall?._zod.def.type;
          if (catchall === undefined)
            out.additionalProperties = false; // strip: removed
          else if (catchall === 'never')
            out.additionalProperties = { not: {} }; // strict: refused
          else if (catchall !== 'unknown' && catchall !== 'any') exact = false;
        }
      },
    }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return exact ? json : undefined;
}
