/**
 * The shards a runner clears stale read marks in (src/internal/redelivery.ts): they must be the
 * ids the cluster writes in `cluster_messages.shard_id`, or a stranded request is never offered again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Redelivery from "../src/internal/redelivery.js"

describe("the shards a runner sweeps for stale reads", () => {
  it("are every shard of every available group, numbered from 1 as the cluster numbers them", () => {
    const shards = Redelivery.allShards({
      ...ShardingConfig.defaults,
      shardsPerGroup: 3,
      availableShardGroups: ["b", "a"]
    }).map(String)
    assert.deepStrictEqual(shards, ["a:1", "a:2", "a:3", "b:1", "b:2", "b:3"])
  })

  it("are the cluster's 300 default shards under its defaults", () => {
    const shards = Redelivery.allShards(ShardingConfig.defaults).map(String)
    assert.strictEqual(shards.length, 300)
    assert.strictEqual(shards[0], "default:1")
    assert.strictEqual(shards[299], "default:300")
  })
})
