/**
 * ContextSource: an extensible, case-insensitive name for where an item came from
 * (a chat, a tool, retrieval…).
 *
 * Any non-blank string is a source; the well-known ones are exported as constants. Sources keep
 * the spelling they were given and compare equal under ASCII case folding.
 *
 * @since 0.1.0
 */
import type { Equivalence as Eq } from "effect"
import * as Name from "./internal/caseInsensitiveName.ts"

/**
 * A ContextSource: any non-blank string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextSource = Name.nameSchema("ContextSource").annotate({ identifier: "ContextSource" })

/**
 * @since 0.1.0
 * @category models
 */
export type ContextSource = typeof ContextSource.Type

/** @since 0.1.0 @category constants */
export const Chat: ContextSource = "Chat"
/** @since 0.1.0 @category constants */
export const Tool: ContextSource = "Tool"
/** @since 0.1.0 @category constants */
export const Rag: ContextSource = "Rag"

/**
 * The source an item has when none is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSource: ContextSource = Chat

/**
 * Sources are equal when they match under ASCII case folding.
 *
 * @since 0.1.0
 * @category equivalence
 */
export const Equivalence: Eq.Equivalence<ContextSource> = Name.equivalence

/**
 * The case-folded form of a source, for use as a map key.
 *
 * @since 0.1.0
 * @category utils
 */
export const fold: (source: ContextSource) => string = Name.foldAscii
