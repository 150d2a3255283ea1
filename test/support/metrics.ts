/**
 * Reading back what a test's calls recorded in a metric registry, from its snapshot: the two
 * integrations' telemetry tests read the same `WindowMetrics` the same way.
 */
import { assert } from "@effect/vitest"
import type { Effect, Metric } from "effect"

type Snapshots = Effect.Success<typeof Metric.snapshot>

/** A counter's value over the series whose attributes include `wanted` (0 when absent). */
export const counterTotal = (snapshots: Snapshots, name: string, wanted: Record<string, string> = {}): number => {
  let total = 0
  for (const s of snapshots) {
    if (s.id !== name || s.type !== "Counter") continue
    const own = s.attributes ?? {}
    if (Object.entries(wanted).every(([k, v]) => own[k] === v)) total += Number(s.state.count)
  }
  return total
}

/** A histogram's state; the metric must exist and be a histogram. */
export const histogramState = (snapshots: Snapshots, name: string) => {
  const found = snapshots.find((s) => s.id === name)
  assert.isDefined(found, name)
  assert.strictEqual(found!.type, "Histogram")
  return found!.type === "Histogram" ? found!.state : undefined
}
