/**
 * Where an option sits in a configuration: the paths that `ScorerConfig.build`,
 * `SlicerConfig.build` and `PlacerConfig.layer` give the errors of the modules they build.
 *
 * @internal
 */
import { InvalidConfigError } from "../InvalidConfigError.ts"

/**
 * Puts a module's error at its place in the configuration. A module's error names the option
 * within its own component (`entries[1].weight`); the configuration's reader needs its place in
 * the whole (`scorer.scorers[1].weight`). An empty prefix keeps the module's path, for callers
 * that build a component on its own.
 */
export const at = (prefix: string, rename: (path: string) => string = (p) => p) => (error: InvalidConfigError) =>
  new InvalidConfigError({
    component: error.component,
    path: prefix === "" ? rename(error.path) : `${prefix}.${rename(error.path)}`,
    rule: error.rule
  })

/** The path of `key` under `prefix` (just `key` at the top). */
export const join = (prefix: string, key: string): string => prefix === "" ? key : `${prefix}.${key}`
