import type { Request } from 'express';
import { z } from 'zod';
import { AppError } from './app-error';

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) =>
      issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ');
}

/**
 * The keys of a query schema that may repeat: members marked `repeatable` (shared's
 * `repeatable()`, a list), optional or not. Worked out once per endpoint.
 */
export function repeatableKeys(schema: z.ZodType): ReadonlySet<string> {
  const shape = (schema as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const keys = new Set<string>();
  for (const [key, member] of Object.entries(shape)) {
    let inner: z.ZodType = member;
    while (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
    if (inner.meta()?.repeatable === true) keys.add(key);
  }
  return keys;
}

/**
 * Validates the query string. A repeated or array parameter (`?a=1&a=2`, `?a[]=1`) is a 400,
 * never silently collapsed, unless its key is one of `repeatable` (a list of plain texts).
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  req: Request,
  repeatable: ReadonlySet<string> = new Set(),
): z.output<S> {
  const query = req.query as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) {
    const texts =
      typeof value === 'string' ||
      (repeatable.has(key) && Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!texts) {
      throw new AppError(
        400,
        'invalid_query',
        repeatable.has(key)
          ? `query parameter "${key}" must be plain text, once or repeated`
          : `query parameter "${key}" must appear once, as plain text`,
      );
    }
  }
  const result = schema.safeParse(query);
  if (!result.success) throw new AppError(400, 'invalid_query', describeIssues(result.error));
  return result.data;
}

/** Validates a JSON body already parsed by the strict JSON body parser. */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  const result = schema.safeParse(req.body);
  if (!result.success) throw new AppError(400, 'invalid_body', describeIssues(result.error));
  return result.data;
}

/** Validates path parameters (ids) by name: the first one that fails names itself. */
export function parseParams(
  shape: Record<string, z.ZodType>,
  params: Record<string, string>,
): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const result = schema.safeParse(params[name]);
    if (!result.success) {
      const why = result.error.issues[0]?.message;
      throw new AppError(
        400,
        'invalid_path',
        `"${name}" is not a valid id${why ? `: ${why}` : ''}`,
      );
    }
    parsed[name] = result.data;
  }
  return parsed;
}
