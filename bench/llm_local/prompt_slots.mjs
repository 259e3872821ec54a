// Which of the context's sequences ("slots") a prompt is evaluated in, so that its cached prefix is reused.
//
// Each slot keeps the tokens of the last prompt (and answer) evaluated in it. A pipeline that alternates prompt
// families (an extraction prompt, then an update-decision prompt, then the next extraction) keeps one family per
// slot: a prompt goes to the slot sharing the longest prefix with it, and a prompt that shares no more than the
// chat template's first tokens with any slot goes to the least recently used one, leaving the others' prefixes
// in place. Only the tokens after the shared prefix are evaluated again.

/** Below this many shared tokens (or the whole prompt, if shorter), a match is only the template's boilerplate. */
export const MIN_REUSE = 32;

/** How many of a prompt's tokens a slot already holds: the common prefix, less the one token that must always be
 * evaluated again to sample the first new one. */
export function reusedPrefix(contextTokens, promptTokens) {
    let common = 0;
    const limit = Math.min(contextTokens.length, promptTokens.length - 1);
    while (common < limit && contextTokens[common] === promptTokens[common])
        common++;
    return common;
}

/** The slot (`{tokens, lastUsed}` each) to evaluate `prompt` in, and how many of its tokens that slot reuses. */
export function chooseSlot(slots, prompt, minReuse = MIN_REUSE) {
    const reuse = slots.map((slot) => reusedPrefix(slot.tokens, prompt));
    const best = reuse.indexOf(Math.max(...reuse));
    if (reuse[best] >= Math.min(minReuse, prompt.length - 1) && reuse[best] > 0)
        return {index: best, reused: reuse[best]};
    let oldest = 0;
    slots.forEach((slot, index) => {
        if (slot.lastUsed < slots[oldest].lastUsed)
            oldest = index;
    });
    return {index: oldest, reused: reuse[oldest]};
}
