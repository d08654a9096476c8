import { z } from 'zod';

/** The standalone simulator's configuration; nothing else reads process.env. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(4010),
  CARD_API_KEY: z.string().min(1).default('demo-key'),
  SIM_SEED: z.coerce.number().int().min(0).max(0xffff_ffff).default(42),
  SIM_TRANSACTIONS: z.coerce.number().int().min(0).max(5_000_000).default(20_000),
  /**
   * For tests only: `1` serves `POST /__testing/transactions` (new transactions outside the
   * service's contract). Refused with NODE_ENV=production: a simulator someone deployed for
   * people to try must not change under them.
   */
  SIM_TEST_HOOKS: z
    .enum(['0', '1'], { message: 'must be 0 or 1' })
    .default('0')
    .transform((v) => v === '1'),
  NODE_ENV: z.string().optional(),
});

export type SimEnv = Omit<z.infer<typeof envSchema>, 'NODE_ENV'>;

export function parseEnv(
  env: Record<string, string | undefined>,
): { ok: true; env: SimEnv } | { ok: false; message: string } {
  // An empty variable counts as unset.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (parsed.success) {
    const { NODE_ENV, ...env } = parsed.data;
    if (env.SIM_TEST_HOOKS && NODE_ENV === 'production') {
      return {
        ok: false,
        message:
          'Invalid environment:\n  SIM_TEST_HOOKS: test hooks are for tests, not with NODE_ENV=production',
      };
    }
    return { ok: true, env };
  }
  const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  return { ok: false, message: `Invalid environment:\n${lines.join('\n')}` };
}
