import fastJson from 'fast-json-stringify';
import { z } from 'zod';

/** Writes a value of a response shape as JSON text. */
export type Serializer<T> = (value: T) => string;

/**
 * A serializer for one response shape, compiled from its zod schema: the schema becomes JSON
 * Schema (`z.toJSONSchema`) once and fast-json-stringify turns that into a function that
 * writes exactly the declared fields, in a fixed order, without JSON.stringify's walk of
 * every property. A field the schema does not declare is never written, so the shape a
 * response may have is the shape its schema gives it. A schema JSON Schema cannot express
 * fails here, at start-up.
 */
export function compileSerializer<S extends z.ZodType>(schema: S): Serializer<z.output<S>> {
  const json = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'output',
    unrepresentable: 'throw',
  }) as Record<string, unknown>;
  delete json.$schema;
  return fastJson(json as unknown as Parameters<typeof fastJson>[0]) as Serializer<z.output<S>>;
}
