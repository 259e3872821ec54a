// The choice of a slot for a prompt: `node --test bench/llm_local/tests/`.

import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {chooseSlot, reusedPrefix} from "../prompt_slots.mjs";

const range = (from, to) => Array.from({length: to - from}, (_, index) => from + index);
const EXTRACTION = range(0, 100);  // a long fixed system prompt
const DECISION = [0, 1, 2, ...range(500, 600)];  // shares only the template's first tokens with it

describe("reusedPrefix", () => {
    it("counts the shared leading tokens, always leaving the last prompt token to evaluate", () => {
        assert.equal(reusedPrefix([], [1, 2, 3]), 0);
        assert.equal(reusedPrefix([1, 2, 9, 9], [1, 2, 3, 4]), 2);
        assert.equal(reusedPrefix([1, 2, 3], [1, 2, 3]), 2);
        assert.equal(reusedPrefix([1, 2, 3, 4, 5], [1, 2, 3]), 2);
        assert.equal(reusedPrefix([7], [1, 2]), 0);
    });
});

describe("chooseSlot", () => {
    it("takes the slot sharing the longest prefix", () => {
        const slots = [
            {tokens: DECISION, lastUsed: 2},
            {tokens: [...EXTRACTION, 7, 7, 7], lastUsed: 1},
        ];
        assert.deepEqual(chooseSlot(slots, [...EXTRACTION, 8, 8]), {index: 1, reused: 100});
    });

    it("sends a prompt that matches nothing to the least recently used slot, sparing the others", () => {
        const slots = [
            {tokens: [...EXTRACTION, 7], lastUsed: 3},
            {tokens: [0, 1, 2, 42], lastUsed: 1},
            {tokens: [], lastUsed: 2},
        ];
        assert.deepEqual(chooseSlot(slots, DECISION), {index: 1, reused: 3});
    });

    it("alternating two prompt families keeps each in its own slot", () => {
        const slots = [{tokens: [], lastUsed: 0}, {tokens: [], lastUsed: 0}];
        const used = [];
        let clock = 0;
        for (const prompt of [[...EXTRACTION, 1], [...DECISION, 1], [...EXTRACTION, 2], [...DECISION, 2]]) {
            const {index, reused} = chooseSlot(slots, prompt);
            used.push([index, reused]);
            slots[index] = {tokens: prompt, lastUsed: ++clock};
        }
        assert.deepEqual(used, [[0, 0], [1, 0], [0, 100], [1, 103]]);
    });

    it("counts a short prompt's full match as reuse", () => {
        const slots = [{tokens: [5, 6, 7, 8], lastUsed: 2}, {tokens: [], lastUsed: 1}];
        assert.deepEqual(chooseSlot(slots, [5, 6, 7, 9]), {index: 0, reused: 3});
    });
});
