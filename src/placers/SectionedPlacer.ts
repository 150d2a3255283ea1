/**
 * SectionedPlacer: a placer made of sections, each holding some kinds of item and placing
 * them with a placer of its own.
 *
 * The window is the sections one after another, in the order they are given. Each item goes
 * to the first section that lists its kind (compared case-insensitively, like every kind); the
 * items of no listed kind go to the *rest* section, the one given without `kinds`, or, if there
 * is none, to the end of the window in the order the placer received them. Inside a section
 * its own placer decides the order, seeing only that section's items.
 *
 * This is how a window gets an order that model providers accept and that still uses
 * relevance where it helps — the {@link conversation} placer: system prompts first, then
 * documents and memory U-shaped (the most relevant at the section's edges), then the
 * conversation in the order it happened. (The specification's chronological placer alone puts
 * items without a timestamp — a pinned system prompt, typically — after everything else.)
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import * as ContextKind from "../ContextKind.ts"
import { InvalidConfigError } from "../InvalidConfigError.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import * as Placer from "./Placer.ts"
import { PlacerContractError } from "./PlacerContractError.ts"
import type { PlacerError } from "./PlacerError.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import * as ChronologicalPlacer from "./ChronologicalPlacer.ts"
import * as UShapedPlacer from "./UShapedPlacer.ts"

/**
 * A section's placer: a placer instance (`UShapedPlacer.make()`, `ChronologicalPlacer.make()`,
 * or any `Placer.Functions`), or a `Placer` layer (a built-in or custom one, built once when
 * the sectioned placer's layer is built).
 *
 * @since 0.2.0
 * @category models
 */
export type SectionPlacer = Placer.Functions | Layer.Layer<Placer.Placer>

/**
 * One section: the kinds it holds (omit `kinds` for the section of every other kind) and its
 * placer.
 *
 * @since 0.2.0
 * @category models
 */
export interface Section {
  readonly kinds?: ReadonlyArray<string> | undefined
  readonly placer: SectionPlacer
}

/**
 * The sections that {@link make} was given, checked: each kind in at most one section, at most
 * one rest section.
 */
const check = (sections: ReadonlyArray<Section>): InvalidConfigError | undefined => {
  const seen = new Map<string, number>()
  let rest: number | undefined
  for (let s = 0; s < sections.length; s++) {
    const kinds = sections[s]!.kinds
    if (kinds === undefined) {
      if (rest !== undefined) {
        return new InvalidConfigError({
          component: "SectionedPlacer",
          path: `sections[${s}].kinds`,
          rule: `must be given: sections[${rest}] already takes every other kind`
        })
      }
      rest = s
      continue
    }
    for (const kind of kinds) {
      const folded = ContextKind.fold(kind)
      const other = seen.get(folded)
      if (other !== undefined) {
        return new InvalidConfigError({
          component: "SectionedPlacer",
          path: `sections[${s}].kinds`,
          rule: `must not repeat kind "${kind}", already in sections[${other}]`
        })
      }
      seen.set(folded, s)
    }
  }
  return undefined
}

/** A section placer as an effectful order function, whichever form it was given in. */
type OrderOf = (items: ReadonlyArray<ScoredItem>) => Effect.Effect<Placer.Order, PlacerError | PlacerContractError>

/**
 * A section's placer: its name and order as the service answers it, and, for plain functions
 * (`Placer.Functions`, the built-in presets' sections), the function itself, which a placement
 * whose every section has one calls directly, outside the Effect runtime (design 135).
 */
interface SectionOrder {
  readonly name: string
  readonly order: OrderOf
  readonly direct: ((items: ReadonlyArray<ScoredItem>) => Placer.Order) | undefined
}

const isFunctions = (placer: SectionPlacer): placer is Placer.Functions => !Layer.isLayer(placer)

/**
 * Makes a sectioned placer layer. Fails with `InvalidConfigError` when a kind is listed in two
 * sections or more than one section omits `kinds`.
 *
 * Each section's placer is held to the placer contract: an order that is not a permutation of
 * the section's items fails the placement with `PlacerContractError` naming that placer. A
 * section given as `Placer.Functions` that throws fails it with `PlacerError` naming that
 * placer, as a custom placer made with `Placer.fromOrder` does.
 *
 * @example
 * ```ts
 * import { ChronologicalPlacer, SectionedPlacer, UShapedPlacer } from "effect-cupel"
 *
 * // Instructions first, retrieved documents U-shaped, the rest oldest first.
 * const placer = SectionedPlacer.make([
 *   { kinds: ["SystemPrompt"], placer: ChronologicalPlacer.make() },
 *   { kinds: ["Document"], placer: UShapedPlacer.layer },
 *   { placer: ChronologicalPlacer.make() }
 * ])
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  sections: ReadonlyArray<Section>,
  options?: { readonly name?: string | undefined }
): Layer.Layer<Placer.Placer, InvalidConfigError> =>
  Layer.effect(
    Placer.Placer,
    Effect.gen(function*() {
      const problem = check(sections)
      if (problem !== undefined) return yield* problem
      const name = options?.name ?? "sectioned"
      const orders: Array<SectionOrder> = []
      for (const section of sections) {
        const placer = section.placer
        // Plain functions are the caller's code: `Placer.fromOrder` turns a throw into a
        // `PlacerError` naming the placer.
        const layer = isFunctions(placer) ? Placer.fromOrder(placer.name, placer.order) : placer
        const built = Context.get(yield* Layer.build(layer), Placer.Placer)
        orders.push({ name: built.name, order: built.order, direct: isFunctions(placer) ? placer.order : undefined })
      }
      const sectionOf = sectionIndex(sections)
      const directs = orders.flatMap(({ direct, name }) => direct === undefined ? [] : [{ name, direct }])
      if (directs.length === orders.length) {
        // Every section a plain function: the whole order in one plain call, as `Placer.fromOrder`
        // would answer each section (a throw a `PlacerError` naming it), in the same turn.
        const direct = (items: ReadonlyArray<ScoredItem>) => placeSectionsDirect(items, sectionOf, directs)
        return Placer.Placer.of({
          name,
          order: (items) =>
            Effect.suspend(() => {
              const out = direct(items)
              return out instanceof Uint32Array ? Effect.succeed(out) : Effect.fail(out)
            }),
          place: (items) =>
            Effect.suspend(() => {
              const out = direct(items)
              return out instanceof Uint32Array ? Effect.succeed(gather(items, out)) : Effect.fail(out)
            })
        })
      }
      const order = (items: ReadonlyArray<ScoredItem>) => placeSections(items, sectionOf, orders)
      return Placer.Placer.of({
        name,
        order,
        // `order` has checked each section's order, so the joined one is a permutation.
        place: (items) => Effect.map(order(items), (o) => gather(items, o))
      })
    })
  )

/** The section of an item, by its folded kind; `sections.length` for the implicit tail. */
const sectionIndex = (sections: ReadonlyArray<Section>): (item: ContextItem) => number => {
  const byKind = new Map<string, number>()
  let rest = sections.length
  for (let s = 0; s < sections.length; s++) {
    const kinds = sections[s]!.kinds
    if (kinds === undefined) rest = s
    else for (const kind of kinds) byKind.set(ContextKind.fold(kind), s)
  }
  const cache = new Map<string, number>()
  return (item) => {
    const known = cache.get(item.kind)
    if (known !== undefined) return known
    const s = byKind.get(ContextKind.fold(item.kind)) ?? rest
    cache.set(item.kind, s)
    return s
  }
}

/** The items in a checked order. */
const gather = (items: ReadonlyArray<ScoredItem>, order: Placer.Order): Array<ContextItem> => {
  const placed = new Array<ContextItem>(order.length)
  for (let k = 0; k < order.length; k++) placed[k] = items[order[k]!]!.item
  return placed
}

/**
 * Checks that a section placer's `local` order is a permutation of its `count` items, marking
 * each in `seen` (one mark per item of the whole placement: sections hold disjoint items, so
 * the marks of one never meet another's). The violation, or `undefined`.
 */
const checkSection = (
  name: string,
  members: ReadonlyArray<number>,
  local: Placer.Order,
  seen: Uint8Array
): PlacerContractError | undefined => {
  const n = members.length
  if (local.length !== n) {
    return new PlacerContractError({ placer: name, violation: "WrongLength", expectedLength: n, actualLength: local.length })
  }
  for (let k = 0; k < n; k++) {
    const index = local[k]!
    // `index >>> 0 === index` admits exactly the integers 0 … 2^32-1; the bound does the rest.
    if (index >>> 0 !== index || index >= n) {
      return new PlacerContractError({ placer: name, violation: "UnknownItem", expectedLength: n, actualLength: n, position: k })
    }
    const global = members[index]!
    if (seen[global] === 1) {
      return new PlacerContractError({ placer: name, violation: "RepeatedItem", expectedLength: n, actualLength: n, position: k })
    }
    seen[global] = 1
  }
  return undefined
}

/** The input indices of each section's items, in input order; the last list is the implicit tail's. */
const splitSections = (
  items: ReadonlyArray<ScoredItem>,
  sectionOf: (item: ContextItem) => number,
  sections: number
): Array<Array<number>> => {
  const indices: Array<Array<number>> = []
  for (let s = 0; s <= sections; s++) indices.push([])
  for (let i = 0; i < items.length; i++) indices[sectionOf(items[i]!.item)]!.push(i)
  return indices
}

/** The items of one section (its `members`' input indices), for its placer. */
const sectionItems = (items: ReadonlyArray<ScoredItem>, members: ReadonlyArray<number>): Array<ScoredItem> => {
  const section = new Array<ScoredItem>(members.length)
  for (let j = 0; j < members.length; j++) section[j] = items[members[j]!]!
  return section
}

/**
 * {@link placeSections} for sections that are all plain functions: the same sections, calls,
 * checks and errors, with no Effect between them.
 */
const placeSectionsDirect = (
  items: ReadonlyArray<ScoredItem>,
  sectionOf: (item: ContextItem) => number,
  orders: ReadonlyArray<{ readonly name: string; readonly direct: (items: ReadonlyArray<ScoredItem>) => Placer.Order }>
): Uint32Array | PlacerError | PlacerContractError => {
  const indices = splitSections(items, sectionOf, orders.length)
  const out = new Uint32Array(items.length)
  const seen = new Uint8Array(items.length)
  let k = 0
  for (let s = 0; s < orders.length; s++) {
    const members = indices[s]!
    if (members.length === 0) continue
    const section = sectionItems(items, members)
    const { name, direct } = orders[s]!
    let local: Placer.Order
    try {
      local = direct(section)
    } catch (cause) {
      return Placer.fail(name, `threw ${describeThrown(cause)}`, cause)
    }
    const violation = checkSection(name, members, local, seen)
    if (violation !== undefined) return violation
    for (let j = 0; j < local.length; j++) out[k++] = members[local[j]!]!
  }
  for (const i of indices[orders.length]!) out[k++] = i
  return out
}

/**
 * Splits the items by section, orders each section with its placer, and joins the orders (a
 * generator function of the module: docs/design.md item 144).
 */
const placeSections = Effect.fnUntraced(function*(
  items: ReadonlyArray<ScoredItem>,
  sectionOf: (item: ContextItem) => number,
  orders: ReadonlyArray<SectionOrder>
) {
  const indices = splitSections(items, sectionOf, orders.length)
  const out = new Uint32Array(items.length)
  const seen = new Uint8Array(items.length)
  let k = 0
  for (let s = 0; s < orders.length; s++) {
    const members = indices[s]!
    if (members.length === 0) continue
    const section = sectionItems(items, members)
    const { name, order } = orders[s]!
    const local = yield* order(section)
    // The section placer's order must be a permutation of its own items.
    const violation = checkSection(name, members, local, seen)
    if (violation !== undefined) return yield* violation
    for (let j = 0; j < local.length; j++) out[k++] = members[local[j]!]!
  }
  for (const i of indices[orders.length]!) out[k++] = i
  return out
})

/**
 * The kinds of the conversation placer's first section.
 *
 * @since 0.2.0
 * @category constants
 */
export const systemKinds: ReadonlyArray<string> = [ContextKind.SystemPrompt]

/**
 * The kinds of the conversation placer's second section: reference material.
 *
 * @since 0.2.0
 * @category constants
 */
export const referenceKinds: ReadonlyArray<string> = [ContextKind.Document, ContextKind.Memory]

/**
 * The placer for a chat window, in an order model providers accept: system prompts first
 * (oldest first), then documents and memory U-shaped by score, then everything else — the
 * conversation: messages, tool calls and tool output — oldest first (items without a
 * timestamp last, in the order received).
 *
 * @since 0.2.0
 * @category layers
 */
export const conversation: Layer.Layer<Placer.Placer> = make([
  { kinds: systemKinds, placer: ChronologicalPlacer.make() },
  { kinds: referenceKinds, placer: UShapedPlacer.make() },
  { placer: ChronologicalPlacer.make() }
], { name: "conversation" }).pipe(
  // The sections above are fixed and valid: `make` cannot fail on them.
  Layer.orDie
)
