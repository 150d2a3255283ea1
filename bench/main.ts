/**
 * `npm run bench`: the placer bench (`place.bench.ts`, issue 4), the pipeline bench
 * (`pipeline.bench.ts`, issue 11), the JSON decoding bench (`decode.bench.ts`, the CLI's input
 * path), the agent session bench (`agent.bench.ts`, issues 18 and 25: the front doors' time per
 * call), the verbosity tiers' cost (`verbosity.bench.ts`, issue 21), the LangChain side by
 * side (`langchain.bench.ts`, issue 29: `trimMessages`, `summarizationMiddleware` and the
 * adapter through `createAgent`) and the store fleet under faults (`store.bench.ts`, issue 28:
 * several processes, one real redis-server killed, frozen, paused and slowed; calls answered,
 * states lost), one after the other, each in a process of its own so that none inherits
 * another's heap. Arguments are passed to all (`--sizes=`, `--steps=`, `--json`);
 * `--bench=place`, `--bench=pipeline`, `--bench=verbosity`, `--bench=decode`, `--bench=agent`,
 * `--bench=langchain` or `--bench=store` runs one. With `--json`, stdout is always one JSON
 * document (`aggregate.ts`): `{ "ok", "verdicts": [{ bench, target, measured, met }…],
 * "benches": { "place": …, "pipeline": …, "decode": …, "agent": …, "langchain": …, "store": … } }`, written even when a
 * bench misses a target or fails; the exit code is then 1. Without `--json`, the first bench
 * that fails stops the run with its exit code.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { aggregate, type Run } from "./aggregate.ts"

const args = process.argv.slice(2)
const json = args.includes("--json")
const only = args.find((a) => a.startsWith("--bench="))?.slice("--bench=".length)
const passed = args.filter((a) => !a.startsWith("--bench="))
const benches = ["place", "pipeline", "verbosity", "decode", "agent", "langchain", "store"].filter((name) => only === undefined || only === name)

const runs: Array<Run> = []
for (const name of benches) {
  const script = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url))
  const result = spawnSync(process.execPath, ["--expose-gc", script, ...passed], {
    stdio: ["ignore", json ? "pipe" : "inherit", "inherit"],
    encoding: "utf8",
    maxBuffer: 1 << 28
  })
  if (json) runs.push({ name, status: result.status, stdout: result.stdout ?? "" })
  else {
    if (result.status !== 0) process.exit(result.status ?? 1)
    if (name !== benches[benches.length - 1]) process.stdout.write("\n")
  }
}
if (json) {
  const { document, exitCode } = aggregate(runs)
  process.stdout.write(JSON.stringify(document, null, 2) + "\n")
  process.exitCode = exitCode
}
