import { Config, Effect } from "effect"
import { Placer } from "../src/index.ts"

// 1. Pure, in the specification's shape.
export const Reversed = Placer.make("reversed", (items) => items.map((s) => s.item).reverse())

// 2. Effectful; may use services (here Config), and may fail with a PlacerError.
export const Configured = Placer.makeEffect("configured", (items) =>
  Effect.gen(function*() {
    const newestFirst = yield* Config.Boolean("NEWEST_FIRST").pipe(
      Config.withDefault(false),
      Effect.mapError((e) => Placer.fail("configured", "bad configuration", e))
    )
    const ordered = [...items].sort((a, b) =>
      (a.item.timestamp?.epochMilliseconds ?? 0) - (b.item.timestamp?.epochMilliseconds ?? 0)
    )
    return (newestFirst ? ordered.reverse() : ordered).map((s) => s.item)
  }))

// 3. Fastest: return the input indices in their new order.
export const ShortestFirst = Placer.fromOrder("shortest-first", (items) =>
  items.map((_, i) => i).sort((a, b) => items[a]!.item.tokens - items[b]!.item.tokens || a - b))
