/**
 * The stable window's tool-result edits at each call, in one place: the state's masked stubs
 * (`Masking`) and references (`ResultReferences`) made again, references decided for the new
 * messages, masking at a compaction, and the references a compaction broke undone (rule R4).
 * `StableWindow` calls these three hooks; the rules are the two modules'.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { AiError } from "effect/ai"
import * as Masking from "../Masking.ts"
import { messageIndexOf } from "../MessageIndex.ts"
import type * as PromptWindow from "../PromptWindow.ts"
import * as ResultReferences from "../ResultReferences.ts"
import type { TokenCounter } from "../TokenCounter.ts"
import type * as WindowEntry from "../WindowEntry.ts"
import type { ItemMemo } from "./editMessages.ts"

type Pairs = ReadonlyArray<readonly [number, number]>
type Failure = AiError.AiError | PromptWindow.CandidateError

/** What a call sends of its tool results: the candidates as sent, before references, and the state's lists. */
export interface Edited {
  readonly candidates: PromptWindow.Candidates
  /** The candidates with the masks but without the references: what an undone reference goes back to. */
  readonly base: PromptWindow.Candidates
  readonly masked: ReadonlyArray<number>
  readonly pairs: Pairs
}

/**
 * At every call: the state's masks (X3) and references (R2) made again, then references for
 * the messages from `seen` on, against the whole results of `pool` (the previous window's
 * messages) and the new messages before each (R1). With `references` off, none is made.
 */
export const atCall = (
  candidates: PromptWindow.Candidates,
  options: AtCallOptions
): Effect.Effect<Edited, Failure, TokenCounter> => atCallBody(candidates, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const atCallBody = Effect.fnUntraced(function*(
  candidates: PromptWindow.Candidates,
  options: AtCallOptions
) {
  const base = yield* Masking.apply(candidates, options.masked, options.memo, options.itemMemo)
  if (!options.references) return { candidates: base, base, masked: options.masked, pairs: [] }
  const fresh: Array<number> = []
  for (let i = options.seen; i < base.messages.length; i++) fresh.push(i)
  const pool = options.pool
  const decided = ResultReferences.decideAt(
    base,
    pool.length,
    (k) => {
      const entry = pool[k]!
      return entry._tag === "Message" ? entry.index : undefined
    },
    fresh,
    options.poolIndex ?? ResultReferences.makePoolIndex()
  )
  const made = yield* ResultReferences.apply(base, [...options.pairs, ...decided], options.referenceMemo, options.itemMemo)
  return { candidates: made.candidates, base, masked: options.masked, pairs: made.pairs }
})

/** The options of {@link atCall}. */
export interface AtCallOptions {
  readonly masked: ReadonlyArray<number>
  readonly pairs: Pairs
  /** The previous window's entries: its messages are the pool. */
  readonly pool: ReadonlyArray<WindowEntry.WindowEntry>
  /** The pool's results read by the previous call, when it carries them (design 108). */
  readonly poolIndex?: ResultReferences.PoolIndex | undefined
  readonly seen: number
  readonly references: boolean
  readonly memo: Masking.Memo
  readonly referenceMemo: ResultReferences.Memo
  readonly itemMemo?: ItemMemo | undefined
}

/**
 * At a compaction with masking on (X2): the oldest tool results masked down to `lowTokens`,
 * never the current turn's (`keep`) nor a message sent as a reference (its stub would differ
 * from the one made again at the next call, where masks come first).
 */
export const atCompaction = (
  edited: Edited,
  options: AtCompactionOptions
): Effect.Effect<Edited, Failure, TokenCounter> => atCompactionBody(edited, options)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const atCompactionBody = Effect.fnUntraced(function*(
  edited: Edited,
  options: AtCompactionOptions
) {
  const referring = new Set(edited.pairs.map(([index]) => index))
  const keep = new Set([...options.keep, ...referring])
  const masked = yield* Masking.compact(edited.candidates, {
    lowTokens: options.lowTokens,
    keep,
    masked: edited.masked,
    memo: options.memo
  })
  if (masked.masked === edited.masked) return edited
  const added = masked.masked.filter((i) => !edited.masked.includes(i))
  return {
    candidates: masked.candidates,
    base: yield* Masking.apply(edited.base, added, options.memo),
    masked: masked.masked,
    pairs: edited.pairs
  }
})

/** The options of {@link atCompaction}. */
export interface AtCompactionOptions {
  readonly lowTokens: number
  readonly keep: ReadonlySet<number>
  readonly memo: Masking.Memo
}

/**
 * X7: what a compaction with masking on cuts its low target by: the tokens the images of the
 * window a cut to that target keeps (`fitted`, fitted before this compaction's masks) would
 * save once masked, outside `keep` (the current turn). That room is left to the calls to come.
 */
export const imageRoom = (
  candidates: PromptWindow.Candidates,
  fitted: PromptWindow.Fitted,
  options: { readonly keep: ReadonlySet<number>; readonly masked: ReadonlyArray<number>; readonly memo: Masking.Memo }
): Effect.Effect<number, Failure, TokenCounter> => {
  const inWindow: Array<number> = []
  for (const item of fitted.result.window) {
    const index = messageIndexOf(item)
    if (index !== undefined) inWindow.push(index)
  }
  return Masking.imageSavings(candidates, Masking.imagesIn(candidates, inWindow, options), options.memo)
}

/**
 * R4: while the fitted window holds a reference whose target it does not hold whole, those
 * references are undone (the message sent whole again) and the window fitted again; after three
 * rounds, every reference of the window is undone. Gives the last fit, its candidates and the
 * references kept.
 */
export const repair = <E, R>(
  fitted: PromptWindow.Fitted,
  edited: Edited,
  refit: (candidates: PromptWindow.Candidates) => Effect.Effect<PromptWindow.Fitted, E, R>
): Effect.Effect<{ readonly fitted: PromptWindow.Fitted; readonly edited: Edited }, E, R> =>
  repairBody(fitted, edited, refit)

// A generator function of the module, not a generator closure made at every call (docs/design.md item 144).
const repairBody = Effect.fnUntraced(function*<E, R>(
  fitted: PromptWindow.Fitted,
  edited: Edited,
  refit: (candidates: PromptWindow.Candidates) => Effect.Effect<PromptWindow.Fitted, E, R>
) {
  let current = fitted
  let state = edited
  for (let round = 0; round < 5 && state.pairs.length > 0; round++) {
    const inWindow = new Set<number>()
    for (const item of current.result.window) {
      const index = messageIndexOf(item)
      if (index !== undefined) inWindow.add(index)
    }
    const bad = ResultReferences.broken(state.pairs, inWindow, state.candidates)
    if (bad.length === 0) break
    const undone = new Set(round < 3 ? bad.map(([index]) => index) : state.pairs.map(([index]) => index))
    const items = state.candidates.items.slice()
    const messages = state.candidates.messages.slice()
    const messageOf = new Map(state.candidates.messageOf)
    for (const index of undone) {
      const before = state.candidates.items[index]!
      items[index] = state.base.items[index]!
      messages[index] = state.base.messages[index]!
      messageOf.delete(before)
      messageOf.set(items[index], messages[index])
    }
    const candidates = { ...state.candidates, items, messages, messageOf }
    state = { ...state, candidates, pairs: state.pairs.filter(([index]) => !undone.has(index)) }
    current = yield* refit(candidates)
  }
  return { fitted: current, edited: state }
})

/**
 * The state's record of the edits (X3, R2): the masked messages and the references, of the
 * window's messages only (a message out of the window is sent in none of the next calls until
 * a compaction, which decides again). `entries` `undefined`: all of them are in the window (an
 * append that continues its carry, docs/design.md item 108).
 */
export const inState = (
  edited: Edited,
  entries: ReadonlyArray<{ readonly _tag: string; readonly index?: number }> | undefined
): { readonly masked?: ReadonlyArray<number>; readonly references?: ReadonlyArray<readonly [number, number]> } => {
  let masked = edited.masked
  let references = edited.pairs
  if (entries !== undefined && (masked.length > 0 || references.length > 0)) {
    const inWindow = new Set<number>()
    for (const entry of entries) if (entry._tag === "Message" && entry.index !== undefined) inWindow.add(entry.index)
    masked = masked.filter((i) => inWindow.has(i))
    references = references.filter(([index]) => inWindow.has(index))
  }
  return {
    ...(masked.length === 0 ? {} : { masked }),
    ...(references.length === 0 ? {} : { references })
  }
}
