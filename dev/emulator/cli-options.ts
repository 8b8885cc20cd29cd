/** Options of `npm run emulator`, from flags and the environment (pure, for tests). */
export interface CliOptions {
  port: number;
  host: string;
  seed: number;
  searchParam: string | undefined;
}

/** Flags win over the environment: --port N, --host H, --seed N, --search-param NAME. */
export function parseCliOptions(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions | string {
  const flag = (name: string): string | undefined => {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i] ?? "";
      if (a === `--${name}`) return argv[i + 1] ?? "";
      if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    }
    return undefined;
  };
  const whole = (raw: string | undefined, what: string, dflt: number, max: number): number | string => {
    if (raw === undefined || raw === "") return dflt;
    const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    return Number.isSafeInteger(n) && n <= max
      ? n
      : `${what} must be a whole number up to ${max}, got "${raw}"`;
  };
  const port = whole(flag("port") ?? env.PORT, "port", 4010, 65535);
  if (typeof port === "string") return port;
  const seed = whole(flag("seed") ?? env.EMULATOR_SEED, "seed", 42, 2 ** 32 - 1);
  if (typeof seed === "string") return seed;
  return {
    port,
    seed,
    host: flag("host") || env.HOST || "127.0.0.1",
    searchParam: flag("search-param") || undefined,
  };
}
