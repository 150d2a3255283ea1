/**
 * PlacerConfig: a placer as data — a policy's `placer` — with one `Schema` for its JSON form,
 * and {@link layer}, the `Placer` layer it names.
 *
 * ```json
 * {
 *   "type": "sectioned",
 *   "sections": [
 *     { "kinds": ["SystemPrompt"], "placer": "chronological" },
 *     { "placer": "u-shaped" }
 *   ]
 * }
 * ```
 *
 * `"u-shaped"`, `"chronological"` and `"conversation"` (`SectionedPlacer.conversation`) may be
 * written as bare strings; a sectioned placer lists its sections, each with the kinds it holds
 * and a placer of its own (sections nest). The shapes are checked when decoding; the rules of a
 * sectioned placer (no kind in two sections…) when its layer is built, by `SectionedPlacer`
 * itself. `Policy` embeds this schema as its `placer` (`Policy.PlacerConfig` is this module's
 * `PlacerConfig`).
 *
 * @since 0.3.0
 */
import { type Context, Effect, Layer, Schema } from "effect"
import type { Scope } from "effect/Scope"
import { at, join } from "../internal/configPath.ts"
import { shorthands } from "../internal/shorthands.ts"
import type { InvalidConfigError } from "../InvalidConfigError.ts"
import type * as Placer from "./Placer.ts"
import * as ChronologicalPlacer from "./ChronologicalPlacer.ts"
import * as SectionedPlacer from "./SectionedPlacer.ts"
import * as UShapedPlacer from "./UShapedPlacer.ts"

/**
 * The placers a policy names by a bare string — `"u-shaped"`, `"chronological"`,
 * `"conversation"` — every placer but a sectioned one, which needs its sections. `cupel run
 * --placer` takes exactly these, so that the command line accepts every placer a policy file
 * can name in one word.
 *
 * @since 0.3.0
 * @category constants
 */
export const placerNames = [UShapedPlacer.name, ChronologicalPlacer.name, "conversation"] as const

/**
 * A placer named by a bare string: one of {@link placerNames}.
 *
 * @since 0.3.0
 * @category models
 */
export type PlacerName = typeof placerNames[number]

const BuiltInPlacerConfig = Schema.Struct({
  type: Schema.Literals(placerNames)
})

/**
 * A placer.
 *
 * @since 0.3.0
 * @category models
 */
export type PlacerConfig =
  | typeof BuiltInPlacerConfig.Type
  | {
    readonly type: "sectioned"
    readonly name?: string
    readonly sections: ReadonlyArray<SectionConfig>
  }

/**
 * One section of a sectioned placer: the kinds it holds (absent for the section of every other
 * kind) and its placer.
 *
 * @since 0.3.0
 * @category models
 */
export interface SectionConfig {
  readonly kinds?: ReadonlyArray<string>
  readonly placer: PlacerConfig
}

/**
 * The JSON form of a placer.
 *
 * @since 0.3.0
 * @category models
 */
export type PlacerConfigEncoded =
  | "u-shaped"
  | "chronological"
  | "conversation"
  | typeof BuiltInPlacerConfig.Encoded
  | {
    readonly type: "sectioned"
    readonly name?: string
    readonly sections: ReadonlyArray<SectionConfigEncoded>
  }

/**
 * The JSON form of a section.
 *
 * @since 0.3.0
 * @category models
 */
export interface SectionConfigEncoded {
  readonly kinds?: ReadonlyArray<string>
  readonly placer: PlacerConfigEncoded
}

/**
 * The `type` of every placer.
 *
 * @since 0.3.0
 * @category constants
 */
export const placerTypes: ReadonlyArray<PlacerConfig["type"]> = [
  UShapedPlacer.name,
  ChronologicalPlacer.name,
  "conversation",
  "sectioned"
]

/**
 * The placer: `"u-shaped"`, `"chronological"`, `"conversation"` (`SectionedPlacer.conversation`),
 * or `{ "type": "sectioned", "name"?: …, "sections": [{ "kinds"?: [kind, …], "placer": placer }, …] }`
 * (`SectionedPlacer.make`; sections nest).
 *
 * @since 0.3.0
 * @category schemas
 */
export const PlacerConfig: Schema.Codec<PlacerConfig, PlacerConfigEncoded> = Schema.Union([
  BuiltInPlacerConfig,
  Schema.Struct({
    type: Schema.Literal("sectioned"),
    name: Schema.optionalKey(Schema.String),
    sections: Schema.Array(
      Schema.Struct({
        kinds: Schema.optionalKey(Schema.Array(Schema.String)),
        placer: Schema.suspend((): Schema.Codec<PlacerConfig, PlacerConfigEncoded> => PlacerConfig)
      })
    )
  }),
  shorthands(placerNames)
]).annotate({
  expected: `a placer: "u-shaped", "chronological", "conversation", or an object whose "type" is one of ${
    placerTypes.join(", ")
  }`
})

const builtInPlacer = (type: typeof BuiltInPlacerConfig.Type["type"]): Layer.Layer<Placer.Placer> => {
  switch (type) {
    case "u-shaped":
      return UShapedPlacer.layer
    case "chronological":
      return ChronologicalPlacer.layer
    case "conversation":
      return SectionedPlacer.conversation
  }
}

type SectionedConfig = Extract<PlacerConfig, { readonly type: "sectioned" }>

// A section takes a `Placer` layer that cannot fail; a nested sectioned placer is built first
// (in the enclosing layer's scope) so that its own configuration error keeps its path.
const sectioned = (
  config: SectionedConfig,
  path: string
): Effect.Effect<Context.Context<Placer.Placer>, InvalidConfigError, Scope> =>
  Effect.gen(function*() {
    const sections: Array<SectionedPlacer.Section> = []
    for (let s = 0; s < config.sections.length; s++) {
      const section = config.sections[s]!
      const inner = section.placer
      const placer = inner.type === "sectioned"
        ? Layer.succeedContext(yield* sectioned(inner, `${join(path, "sections")}[${s}].placer`))
        : builtInPlacer(inner.type)
      sections.push(section.kinds === undefined ? { placer } : { kinds: section.kinds, placer })
    }
    return yield* Layer.build(SectionedPlacer.make(sections, { name: config.name })).pipe(Effect.mapError(at(path)))
  })

/**
 * The placer layer a configuration names: `UShapedPlacer.layer`, `ChronologicalPlacer.layer`,
 * `SectionedPlacer.conversation`, or `SectionedPlacer.make` with its sections' placers. A
 * sectioned placer's configuration error has its path prefixed with `path`, where the placer
 * sits (`"placer"` in a policy, as `Policy.placer` puts it: `placer.sections[2].kinds`; by
 * default `""`).
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (config: PlacerConfig, path = ""): Layer.Layer<Placer.Placer, InvalidConfigError> =>
  config.type === "sectioned" ? Layer.effectContext(sectioned(config, path)) : builtInPlacer(config.type)
