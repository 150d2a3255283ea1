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

/** The plain-text counter of an encoding (`countTokens`). */
export const loadTextCounter = (encoding: Encoding): Effect.Effect<(text: string) => number, TokenizerLoadError> =>
  encoding === "o200k_base"
    ? importing(encoding, () => import("gpt-tokenizer/encoding/o200k_base")).pipe(
      Effect.map((m) => (text: string) => m.countTokens(text, asText))
    )
    : importing(encoding, () => import("gpt-tokenizer/encoding/cl100k_base")).pipe(
      Effect.map((m) => (text: string) => m.countTokens(text, asText))
    )

/** The chat encoder of an encoding (`encodeChat`, for the model the encoding is named after). */
export const loadChatEncoder = (encoding: Encoding): Effect.Effect<EncodeChat, TokenizerLoadError> =>
  encoding === "o200k_base"
    ? importing(encoding, () => import("gpt-tokenizer/encoding/o200k_base")).pipe(
      Effect.map((m): EncodeChat => (chat) => m.encodeChat(chat, "gpt-4o", asText))
    )
    : importing(encoding, () => import("gpt-tokenizer/encoding/cl100k_base")).pipe(
      Effect.map((m): EncodeChat => (chat) => m.encodeChat(chat, "gpt-4", asText))
    )
