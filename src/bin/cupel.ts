#!/usr/bin/env node
/**
 * The `cupel` command-line program: `cupel demo`, `cupel run`, `cupel place`, `cupel conformance`.
 *
 * Run with a Node that strips types (`npm start`, `npx cupel`, `node src/bin/cupel.ts` with the
 * Node 22 that `npm install` provides), or build and run `dist/bin/cupel.js`.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import * as Main from "../cli/Main.ts"

Main.run.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
