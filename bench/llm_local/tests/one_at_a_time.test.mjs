// The server's queue: `node --test bench/llm_local/tests/`.

import assert from "node:assert/strict";
import {it} from "node:test";
import {OneAtATime} from "../one_at_a_time.mjs";

function task(log, name, {fail = false} = {}) {
    return async () => {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`end ${name}`);
        if (fail)
            throw new Error(name);
        return name;
    };
}

it("runs tasks one at a time, in the order they came", async () => {
    const queue = new OneAtATime();
    const log = [];
    const results = await Promise.all([queue.run(task(log, "a")), queue.run(task(log, "b")), queue.run(task(log, "c"))]);
    assert.deepEqual(results, ["a", "b", "c"]);
    assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
});

it("goes on after a task fails, and the failure reaches only its own caller", async () => {
    const queue = new OneAtATime();
    const log = [];
    const failed = queue.run(task(log, "a", {fail: true}));
    const next = queue.run(task(log, "b"));
    await assert.rejects(failed, /a/);
    assert.equal(await next, "b");
    assert.deepEqual(log, ["start a", "end a", "start b", "end b"]);
});

it("counts the tasks waiting or running", async () => {
    const queue = new OneAtATime();
    const log = [];
    const first = queue.run(task(log, "a"));
    const second = queue.run(task(log, "b"));
    assert.equal(queue.pending, 2);
    await first;
    assert.equal(queue.pending, 1);
    await second;
    assert.equal(queue.pending, 0);
});
