/**
 * The states a `WindowStore` last read or wrote, by key, with their stored texts
 * (docs/design.md item 124): a read whose text is the one remembered for its key gets the state
 * that text stands for, without decoding it again. Decoding is a function of the text alone, so
 * an equal text is the same state (`===` on strings: a pointer comparison for the string the
 * store handed back, as an in-memory store does, a comparison of characters for an equal one,
 * as a store across processes hands back); a text written by anyone else — another process, a
 * corrupt or foreign value — differs and is decoded as before. A state written is remembered with
 * the text it was encoded to: `WindowState`'s schema is lossless (a state decodes from its text
 * to an equal state, `test/ai/WindowStoreTexts.test.ts`).
 *
 * Bounded: past `max` keys, the key remembered longest ago is forgotten.
 *
 * @internal
 */
import { setNewest } from "./newest.ts"
import type * as WindowState from "../WindowState.ts"

/** A key's last text and its state. */
interface Known {
  readonly text: string
  readonly state: WindowState.WindowState
}

/** The memo of one store. */
export interface StateTexts {
  /** The state `text` stands for, when it is the text remembered for `key`. */
  readonly stateOf: (key: string, text: string) => WindowState.WindowState | undefined
  /** Remembers that `text` stands for `state` under `key`. */
  readonly remember: (key: string, text: string, state: WindowState.WindowState) => void
}

/** Keys remembered at most: the live conversations of a busy process. */
const defaultMax = 1_024

/** An empty memo of at most `max` keys. */
export const make = (max = defaultMax): StateTexts => {
  const known = new Map<string, Known>()
  return {
    stateOf: (key, text) => {
      const entry = known.get(key)
      return entry !== undefined && entry.text === text ? entry.state : undefined
    },
    remember: (key, text, state) => setNewest(known, key, { text, state }, max)
  }
}
