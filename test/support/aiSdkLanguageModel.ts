/**
 * The published `effect/ai` `LanguageModel` over an AI SDK provider model
 * (src/adapters/AiSdkLanguageModel.ts), with the one setting the wire tests rely on.
 *
 * `@effect/ai-anthropic` sends no `eager_input_streaming`: its streamed calls send the tool
 * definitions its generated calls send. `@ai-sdk/anthropic` adds the flag to streamed calls
 * unless `toolStreaming` is off; off here, so that this stand-in sends what that provider does.
 */
import type { Effect, Layer } from "effect"
import type { LanguageModel } from "effect/ai"
import * as AiSdkLanguageModel from "../../src/adapters/AiSdkLanguageModel.ts"

const settings: AiSdkLanguageModel.Settings = { providerOptions: { anthropic: { toolStreaming: false } } }

/** The `LanguageModel` over `model`. */
export const make = (model: AiSdkLanguageModel.ProviderModel): Effect.Effect<LanguageModel.LanguageModel> =>
  AiSdkLanguageModel.make(model, settings)

/** The `LanguageModel` layer over `model`. */
export const layer = (model: AiSdkLanguageModel.ProviderModel): Layer.Layer<LanguageModel.LanguageModel> =>
  AiSdkLanguageModel.layer(model, settings)
