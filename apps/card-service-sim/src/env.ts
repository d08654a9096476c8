import { z } from 'zod';

/** The standalone simulator's configuration; nothing else reads process.env. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(4010),
  CARD_API_KEY: z.string().min(1).default('demo-key'),
  SIM_SEED: z.coerce.number().int().min(0).max(0xffff_ffff).default(42),
  SIM_TRANSACTIONS: z.coerce.number().int().min(0).max(5_000_000).default(20_000),
});

export type SimEnv = z.infer<typeof envSchema>;

export function parseEnv(
  env: Record<string, string | undefined>,
): { ok: true; env: SimEnv } | { ok: false; message: string } {
  // An empty variable counts as unset.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return { ok: true, env: parsed.data };
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  return { ok: false, message: `Invalid environment:\n${lines.join('\n')}` };
}
