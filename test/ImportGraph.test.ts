/**
 * The shape of src/'s import graph: no circles, and `src/internal/` below the modules that use
 * it. The graph is read here, from the sources, by a small reader of relative specifiers
 * (`import … from "./x.ts"`, `export … from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")`);
 * type-only imports count, since a circle of types is still a circle a reader must untangle.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** Every .ts file under `dir`, as a path relative to the root (`src/internal/groups.ts`). */
const sources = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(`${dir}/${entry.name}`)
      : entry.name.endsWith(".ts")
      ? [`${dir}/${entry.name}`]
      : []
  ).sort()

// A statement that starts a line, with no quote between its keyword and its `from` (so that
// the match cannot run on past an import of a package into the next statement).
const staticFrom = /^[ \t]*(?:import|export)\s[^"'`]*?\bfrom\s*["']([^"']+)["']/gm
const sideEffect = /^[ \t]*import\s*["']([^"']+)["']/gm
const dynamic = /\bimport\(\s*["']([^"']+)["']\s*\)/g

/** The relative specifiers a module's text imports or re-exports, in order of appearance. */
const specifiers = (text: string): Array<string> =>
  [staticFrom, sideEffect, dynamic]
    .flatMap((pattern) => [...text.matchAll(pattern)].map((m) => ({ at: m.index, specifier: m[1]! })))
    .filter(({ specifier }) => specifier.startsWith("./") || specifier.startsWith("../"))
    .sort((a, b) => a.at - b.at)
    .map(({ specifier }) => specifier)

interface Graph {
  readonly files: ReadonlyArray<string>
  readonly imports: ReadonlyMap<string, ReadonlyArray<string>>
  /** Specifiers that name no file: the reader would be blind to them. */
  readonly unresolved: ReadonlyArray<string>
}

const readGraph = (dir: string): Graph => {
  const files = sources(dir)
  const imports = new Map<string, Array<string>>()
  const unresolved: Array<string> = []
  for (const file of files) {
    const targets: Array<string> = []
    for (const specifier of specifiers(readFileSync(join(root, file), "utf8"))) {
      const target = relative(root, join(root, dirname(file), specifier))
      if (!existsSync(join(root, target))) unresolved.push(`${file}: ${specifier}`)
      else if (!targets.includes(target)) targets.push(target)
    }
    imports.set(file, targets)
  }
  return { files, imports, unresolved }
}

/** The strongly connected components of two or more modules (and modules importing themselves): Tarjan's. */
const circles = (graph: Graph): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<Array<string>> = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.imports.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) === index.get(file)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== file)
      if (component.length > 1 || (graph.imports.get(file) ?? []).includes(file)) out.push(component.sort())
    }
  }
  for (const file of graph.files) if (!index.has(file)) visit(file)
  return out
}

/** The shortest import path from `from` to `to` (both included), or undefined. */
const path = (graph: Graph, from: string, to: string): Array<string> | undefined => {
  const previous = new Map<string, string>([[from, from]])
  const queue = [from]
  for (let k = 0; k < queue.length; k++) {
    const file = queue[k]!
    for (const next of graph.imports.get(file) ?? []) {
      if (next === to) {
        const out = [to]
        for (let at = file; at !== from; at = previous.get(at)!) out.push(at)
        out.push(from)
        return out.reverse()
      }
      if (!previous.has(next)) {
        previous.set(next, file)
        queue.push(next)
      }
    }
  }
  return undefined
}

/**
 * Every loop of imports (`a -> b -> a`), each once, starting at its first module in sort order;
 * at most `limit` per circle, so that a tangle is named without listing every way round it.
 */
const loops = (graph: Graph, limit = 12): Array<string> =>
  circles(graph).flatMap((component) => {
    const members = new Set(component)
    const out: Array<string> = []
    for (const start of component) {
      const walk = (file: string, trail: Array<string>) => {
        for (const next of graph.imports.get(file) ?? []) {
          if (out.length >= limit) return
          if (next === start) out.push([...trail, start].join(" -> "))
          else if (members.has(next) && next > start && !trail.includes(next)) walk(next, [...trail, next])
        }
      }
      walk(start, [start])
    }
    return out
  })

/** A module of an `internal/` folder: the shared `src/internal/` or an area's (`src/ai/internal/`). */
const isInternal = (file: string) => file.split("/").includes("internal")

/** The area a module belongs to: its first folder under src/ (`ai`, `scorers`…), or `root`. */
const areaOf = (file: string): string => {
  const parts = file.split("/")
  return parts.length > 2 && parts[1] !== "internal" ? parts[1]! : "root"
}

/** The core's areas: the pipeline and its families, below every integration. */
const coreAreas = new Set(["root", "scorers", "slicers", "placers", "stages"])
const integrations = ["src/ai/", "src/adapters/", "src/plain/", "src/cli/"]

/**
 * Every internal module that reaches a public module that reaches it back: the internal's
 * import path up to the public module, and the way back down.
 */
const backEdges = (graph: Graph): Array<string> => {
  const out: Array<string> = []
  for (const internal of graph.files.filter(isInternal)) {
    for (const target of graph.files.filter((file) => !isInternal(file))) {
      const up = path(graph, internal, target)
      if (up === undefined || up.slice(1, -1).some((file) => !isInternal(file))) continue
      const down = path(graph, target, internal)
      if (down !== undefined) out.push(`${up.join(" -> ")}, which imports it back: ${down.join(" -> ")}`)
    }
  }
  return out
}

describe("the import graph's reader", () => {
  it("reads static, type-only, multi-line, re-exported, side-effect and dynamic relative specifiers", () => {
    const text = [
      `/**`,
      ` * import { x } from "./inComment.ts"`,
      ` */`,
      `import { Effect } from "effect"`,
      `import type { A } from "./a.ts"`,
      `import {`,
      `  B,`,
      `  type C`,
      `} from "../b.ts"`,
      `import * as D from "./d.ts"`,
      `import "./sideEffect.ts"`,
      `export { E } from "./e.ts"`,
      `export * as F from "./f.ts"`,
      `export type { G } from "./g.ts"`,
      `export const h = () => import("./h.ts")`,
      `const s = "not from \\"./string.ts\\""`
    ].join("\n")
    assert.deepStrictEqual(specifiers(text), [
      "./a.ts",
      "../b.ts",
      "./d.ts",
      "./sideEffect.ts",
      "./e.ts",
      "./f.ts",
      "./g.ts",
      "./h.ts"
    ])
  })

  it("finds every module of src/ and resolves every relative specifier to a file", () => {
    const graph = readGraph("src")
    assert.deepStrictEqual(graph.unresolved, [])
    assert.isAbove(graph.files.length, 100)
    assert.includeMembers([...(graph.imports.get("src/Policy.ts") ?? [])], ["src/Pipeline.ts"])
    assert.includeMembers([...(graph.imports.get("src/index.ts") ?? [])], ["src/scorers/RecencyScorer.ts"])
  })

  it("names each loop of a circle, from its first module", () => {
    const graph: Graph = {
      files: ["a", "b", "c", "d"],
      imports: new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["d"]]]),
      unresolved: []
    }
    assert.deepStrictEqual(loops(graph), ["a -> b -> c -> a", "d -> d"])
  })
})

describe("the import graph of src/", () => {
  it("has no import circles", () => {
    const found = loops(readGraph("src"))
    assert.deepStrictEqual(found, [], `import circles in src/:\n${found.join("\n")}`)
  })

  it("no module under an internal/ folder imports a public module that imports it back", () => {
    const found = backEdges(readGraph("src"))
    assert.deepStrictEqual(found, [], `internal modules above their users:\n${found.join("\n")}`)
  })

  it("the core's internal modules never import ai/, adapters/, plain/ or cli/", () => {
    const graph = readGraph("src")
    const found = graph.files
      .filter((file) => isInternal(file) && coreAreas.has(areaOf(file)))
      .flatMap((file) =>
        (graph.imports.get(file) ?? [])
          .filter((target) => integrations.some((prefix) => target.startsWith(prefix)))
          .map((target) => `${file} -> ${target}`)
      )
    assert.deepStrictEqual(found, [], `core internals that import an integration:\n${found.join("\n")}`)
  })

  it("an area's internal modules are imported from that area only", () => {
    const graph = readGraph("src")
    const found: Array<string> = []
    for (const [file, targets] of graph.imports) {
      for (const target of targets) {
        if (!isInternal(target) || target.startsWith("src/internal/")) continue
        if (areaOf(target) !== areaOf(file)) found.push(`${file} -> ${target}`)
      }
    }
    assert.deepStrictEqual(found, [], `imports of another area's internal modules:\n${found.join("\n")}`)
  })

  it("src/internal/ holds only helpers that more than one area uses", () => {
    const graph = readGraph("src")
    // The areas that reach a shared helper through other shared helpers only.
    const users = new Map<string, Set<string>>()
    for (const file of graph.files) {
      if (file.startsWith("src/internal/")) continue
      const seen = new Set<string>()
      const queue = (graph.imports.get(file) ?? []).filter((t) => t.startsWith("src/internal/"))
      while (queue.length > 0) {
        const helper = queue.pop()!
        if (seen.has(helper)) continue
        seen.add(helper)
        queue.push(...(graph.imports.get(helper) ?? []).filter((t) => t.startsWith("src/internal/")))
      }
      for (const helper of seen) {
        const areas = users.get(helper) ?? new Set<string>()
        areas.add(areaOf(file))
        users.set(helper, areas)
      }
    }
    const found = [...users]
      .filter(([, areas]) => areas.size === 1 && !areas.has("root"))
      .map(([helper, areas]) => `${helper} is used by ${[...areas][0]}/ only: move it to src/${[...areas][0]}/internal/`)
    assert.deepStrictEqual(found, [], found.join("\n"))
  })
})
