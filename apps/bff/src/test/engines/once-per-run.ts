/**
 * What a global set-up makes once for the run, however many of the BFF's projects set it up:
 * Vitest sets each project up on its own and may load the set-up's module afresh, so what was
 * made is kept on the process under `key`. The first set-up makes it and gets the teardown that
 * removes it when the run ends; the others get what it made and no teardown.
 */
export async function oncePerRun<T>(
  key: string,
  make: () => Promise<T>,
  remove: (made: T) => Promise<void> | void,
): Promise<{ made: T; teardown?: () => Promise<void> }> {
  const runs = globalThis as unknown as Record<string, Promise<T> | undefined>;
  const known = runs[key];
  if (known) return { made: await known };
  const making = make();
  runs[key] = making;
  const made = await making;
  return {
    made,
    teardown: async () => {
      delete runs[key];
      await remove(made);
    },
  };
}
