// Builds what `npm start` and the image run: one bundle per entry (dist/main.js, dist/doctor.js)
// with a source map beside it. The npm packages stay in node_modules and load as they would from
// tsc's output, except the few in BUNDLED, and three taken from scripts/bundle/ (SUBSTITUTES).
// Type checking is `npm run check`'s job (tsc --noEmit).
//
// Why a bundle rather than tsc's file per module (docs/performance.md, "One bundle"): a smaller idle
// heap (25.4 -> 20.8 MB with the substitutes and the workers' shared connection). Two hundred
// module records and their namespaces become one script; sources with an emoji or a dash are
// written in ASCII (escaped), so V8 keeps them at one byte a character instead of two; zod,
// bundled, keeps what the app uses instead of loading all 60 locales; and the substitutes load
// the part of BullMQ, undici and Bolt the app uses instead of their every backend and feature.
//
//   tsx scripts/build.ts                  (npm run build, and npm start's prestart)
//   tsx scripts/build.ts --outdir DIR     (somewhere else; test/docker/build.test.ts)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, type Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** What `npm run build` bundles, each into its own file. */
export const ENTRIES = ["src/main.ts", "src/doctor.ts"];

/**
 * Packages bundled rather than loaded from node_modules. zod's every entry re-exports all its
 * locales, so loading it from node_modules compiles 95 modules; bundled, with the app importing
 * `* as z`, what the app never names (the locales, JSON Schema) is left out. Bolt, bundled, can
 * be given a `@slack/socket-mode` that does not load undici's index (SUBSTITUTES); the packages
 * Bolt requires still load from node_modules.
 */
const BUNDLED = new Set(["zod", "@slack/bolt"]);

/**
 * Packages the bundle takes from scripts/bundle/ instead: each is the part of the package the app
 * uses, loaded from the package's own modules (the reasons are in each file). Measured by heap
 * snapshots of the idle app: 4.0 MB less heap than with the packages' indexes (24.8 -> 20.8 MB).
 */
const SUBSTITUTES: Record<string, string> = {
  bullmq: "scripts/bundle/bullmq.mjs",
  undici: "scripts/bundle/undici.mjs",
  "@slack/socket-mode": "scripts/bundle/no-socket-mode.mjs",
};

/**
 * SUBSTITUTES, and the packages that a bundled package (Bolt) requires: they load from
 * node_modules, as the app's own dependencies do, so each must be the copy the bundled package
 * would have found itself (npm hoists them today; a nested copy fails the build, not the app).
 */
function substitutes(root: string): Plugin {
  const bundledDirs = [...BUNDLED].map((name) => `/node_modules/${name}/`);
  const fromRoot = createRequire(resolve(root, "package.json"));
  return {
    name: "substitutes",
    setup(b) {
      const names = Object.keys(SUBSTITUTES).map((n) => n.replace(/[/.]/g, "\\$&"));
      b.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (args) => ({
        path: resolve(root, String(SUBSTITUTES[args.path])),
      }));
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (!bundledDirs.some((d) => args.importer.includes(d)) || BUNDLED.has(packageOf(args.path))) return;
        if (isBuiltin(args.path)) return { external: true };
        const own = createRequire(args.importer).resolve(args.path);
        return own === fromRoot.resolve(args.path)
          ? { external: true }
          : { errors: [{ text: `${args.path} is not the copy at the root of node_modules (${own})` }] };
      });
    },
  };
}

/** `@scope/name` or `name` of an import like `@scope/name/sub/path`. */
const packageOf = (path: string): string =>
  path
    .split("/")
    .slice(0, path.startsWith("@") ? 2 : 1)
    .join("/");

/** Every other package the project declares, and its subpaths, stay imports from node_modules. */
function externals(root: string): string[] {
  const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !BUNDLED.has(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/**
 * Bundles `entryPoints` (paths from `root`) into `outdir`, each entry `<name>.js` with its map.
 * The benches use it too, so that what they run is built the way the image's app is.
 */
export async function bundle(o: { entryPoints: string[]; outdir: string; root?: string }): Promise<void> {
  const root = o.root ?? ROOT;
  const result = await build({
    absWorkingDir: root,
    entryPoints: o.entryPoints,
    outdir: o.outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: externals(root),
    plugins: [substitutes(root)],
    // Bolt, bundled, is CommonJS: its require() of the packages left in node_modules needs one.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    // Class and function names as written: log lines name error classes by them.
    keepNames: true,
    sourcemap: "linked",
    logLevel: "warning",
    write: false,
  });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.path.endsWith(".js") ? asciiOnly(file.text) : file.contents);
  }
}

/**
 * esbuild escapes non-ASCII in strings, templates and names, but leaves it in comments and
 * regular expressions (a dash in a zod comment, curly quotes in a parser's pattern), and one such
 * character makes V8 hold the whole source at two bytes a character. `\uXXXX` means the same
 * code unit in both places (a pair of them, one code point, under the `u` flag).
 */
function asciiOnly(js: string): string {
  return js.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { outdir: { type: "string", default: "dist" } } });
  const outdir = resolve(ROOT, values.outdir);
  // Nothing left over from an earlier build (tsc's file per module) to be run by mistake.
  rmSync(outdir, { recursive: true, force: true });
  await bundle({ entryPoints: ENTRIES, outdir });
}
