/**
 * `npm run bench`: the placer bench (`place.bench.ts`, issue 4), the pipeline bench
 * (`pipeline.bench.ts`, issue 11), the JSON decoding bench (`decode.bench.ts`, the CLI's input
 * path), the agent session bench (`agent.bench.ts`, issue 18) and the verbosity tiers' cost
 * (`verbosity.bench.ts`, issue 21), one after the other, each in a
 * process of its own so that none inherits another's heap. Arguments are passed to all
 * (`--sizes=`, `--steps=`, `--json`); `--bench=place`, `--bench=pipeline`, `--bench=verbosity`,
 * `--bench=decode` or `--bench=agent` runs one. With `--json`, stdout is one JSON document,
 * `{ "place": …, "pipeline": …, "decode": …, "agent": … }`.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const args = process.argv.slice(2)
const json = args.includes("--json")
const only = args.find((a) => a.startsWith("--bench="))?.slice("--bench=".length)
const passed = args.filter((a) => !a.startsWith("--bench="))
const benches = ["place", "pipeline", "verbosity", "decode", "agent"].filter((name) => only === undefined || only === name)

const outputs: Record<string, unknown> = {}
for (const name of benches) {
  const script = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url))
  const result = spawnSync(process.execPath, ["--expose-gc", script, ...passed], {
    stdio: ["ignore", json ? "pipe" : "inherit", "inherit"],
    encoding: "utf8",
    maxBuffer: 1 << 28
  })
  if (result.status !== 0) process.exit(result.status ?? 1)
  if (json) outputs[name] = JSON.parse(result.stdout)
  else if (name !== benches[benches.length - 1]) process.stdout.write("\n")
}
if (json) process.stdout.write(JSON.stringify(outputs, null, 2) + "\n")
