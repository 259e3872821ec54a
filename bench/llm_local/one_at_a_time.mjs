// The server's queue: generations run one at a time, in the order they arrived, each after the last finished.
// Two generations at once would only split one thread between them and hold two prompts in one context.

/** Runs one task at a time, in the order they were given; a failed task does not stop the ones after it. */
export class OneAtATime {
    #tail = Promise.resolve();
    #pending = 0;

    /** How many tasks are waiting or running. */
    get pending() {
        return this.#pending;
    }

    /** Run `task` (a function returning a promise) after every task given before it has settled. */
    run(task) {
        this.#pending++;
        const result = this.#tail.then(task).finally(() => this.#pending--);
        this.#tail = result.catch(() => undefined);
        return result;
    }
}
