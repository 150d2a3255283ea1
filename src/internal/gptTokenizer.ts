/**
 * The one place that imports `gpt-tokenizer`, an optional peer dependency: on demand, one
 * encoding at a time, its absence a typed `TokenizerLoadError` rather than a defect.
 *
 * @internal
 */
import { Effect } from "effect"
import { TokenizerLoadError } from "../TokenizerLoadError.ts"

/** The encodings `gpt-tokenizer` is loaded for. */
export type Encoding = "o200k_base" | "cl100k_base"

/** Encodes chat messages, framed as the chat format sends them. */
export type EncodeChat = (chat: ReadonlyArray<{ role: string; content: string }>) => Array<number>

/** Imports a module of the optional peer: its absence is a typed failure, not a defect. */
const importing = <M>(encoding: Encoding, load: () => Promise<M>): Effect.Effect<M, TokenizerLoadError> =>
  Effect.tryPromise({ try: load, catch: (cause) => new TokenizerLoadError({ encoding, cause }) })

/** Text that looks like a special token is counted as text, never refused. */
const asText = { disallowedSpecial: new Set<string>() }

/**
 * A text at least this long is counted with `gpt-tokenizer`'s merge cache emptied first.
 * Its cache is a `Map` kept in least-recently-used order by deleting and re-adding keys, and
 * once full it deletes its first key at every miss: the deleted slots pile up at the front of
 * the table, and finding the first live key walks them all until the table is rebuilt. On text
 * whose pre-tokens rarely repeat (base64, Chinese, a large JSON dump) every miss then costs
 * thousands of steps: 3–5 s a megabyte of base64 instead of 0.6–1 s (docs/design.md item 122).
 * An emptied cache takes a piece's pre-tokens without deleting any; prose costs the same.
 */
const clearAbove = 4_096

/** Counts a text, the merge cache emptied first for a long one (see {@link clearAbove}). */
const countWith = (m: { countTokens: (text: string, options: typeof asText) => number; clearMergeCache: () => void }) =>
(text: string): number => {
  if (text.length >= clearAbove) m.clearMergeCache()
  return m.countTokens(text, asText)
}

/** The plain-text counter of an encoding (`countTokens`). */
export const loadTextCounter = (encoding: Encoding): Effect.Effect<(text: string) => number, TokenizerLoadError> =>
  encoding === "o200k_base"
    ? importing(encoding, () => import("gpt-tokenizer/encoding/o200k_base")).pipe(Effect.map(countWith))
    : importing(encoding, () => import("gpt-tokenizer/encoding/cl100k_base")).pipe(Effect.map(countWith))

/** The chat encoder of an encoding (`encodeChat`, for the model the encoding is named after). */
export const loadChatEncoder = (encoding: Encoding): Effect.Effect<EncodeChat, TokenizerLoadError> =>
  encoding === "o200k_base"
    ? importing(encoding, () => import("gpt-tokenizer/encoding/o200k_base")).pipe(
      Effect.map((m): EncodeChat => (chat) => m.encodeChat(chat, "gpt-4o", asText))
    )
    : importing(encoding, () => import("gpt-tokenizer/encoding/cl100k_base")).pipe(
      Effect.map((m): EncodeChat => (chat) => m.encodeChat(chat, "gpt-4", asText))
    )
