// Every public method of the real TypeScript `mem0ai` MemoryClient against a running mnemo platform.
//
// Run by tests/e2e/platform/test_typescript_client.py (after `npm ci` here), with MNEMO_URL and MNEMO_API_KEY
// naming the server and a fresh project's key, and MNEMO_WEBHOOK_URL a loopback receiver of webhooks. It prints
// one JSON object on stdout:
//   {"methods": [every public method of MemoryClient.prototype], "called": [the ones this script called],
//    "steps": {"<step>": {"ok": <the client's answer>} | {"error": {"name", "message"}}}}
// and the pytest test asserts on it. Only the calls of the client are tested here; the two plain `fetch`es (the
// event of an asynchronous add, the project's memories at the end) only wait or look.
import { MemoryClient } from "mem0ai";

const host = process.env.MNEMO_URL;
const apiKey = process.env.MNEMO_API_KEY;
if (!host || !apiKey || !process.env.MNEMO_WEBHOOK_URL) {
  console.error("MNEMO_URL, MNEMO_API_KEY and MNEMO_WEBHOOK_URL must be set");
  process.exit(2);
}

const methods = Object.getOwnPropertyNames(MemoryClient.prototype)
  .filter((name) => name !== "constructor" && !name.startsWith("_"))
  .filter((name) => typeof MemoryClient.prototype[name] === "function")
  .sort();
const called = new Set();

// The client, with every public method call recorded.
function recorded(client) {
  return new Proxy(client, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value === "function" && methods.includes(name)) {
        return (...args) => {
          called.add(name);
          return value.apply(target, args);
        };
      }
      return value;
    },
  });
}

const steps = {};
async function step(name, run) {
  try {
    const value = await run();
    steps[name] = { ok: value === undefined ? null : value };
    return value;
  } catch (error) {
    steps[name] = { error: { name: error?.name ?? "Error", message: String(error?.message ?? error) } };
    return undefined;
  }
}

async function until(read, done, what, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await read();
    if (done(got)) return got;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(got)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function event(eventId) {
  const answer = await fetch(`${host}/v1/event/${eventId}/`, { headers: { Authorization: `Token ${apiKey}` } });
  return answer.json();
}

async function deliveries(webhookId) {
  const answer = await fetch(`${host}/api/v1/webhooks/${webhookId}/deliveries/`, {
    headers: { Authorization: `Token ${apiKey}` },
  });
  return answer.json();
}

const client = recorded(new MemoryClient({ apiKey, host }));

// ---- the ping, and the ids it gives -------------------------------------------------------------------------
await step("ping", () => client.ping());
await client._awaitIdentity();
steps.identity = { ok: { organizationId: client.organizationId, projectId: client.projectId } };

// ---- webhooks: made, listed, changed; deleted after the adds it is told of ---------------------------------
const receiver = process.env.MNEMO_WEBHOOK_URL;
const hook = await step("createWebhook", () =>
  client.createWebhook({ name: "hook", url: `${receiver}/first`, eventTypes: ["memory_update"] }),
);
await step("getWebhooks", () => client.getWebhooks());
await step("getWebhooks.projectId", () => client.getWebhooks({ projectId: client.projectId }));
await step("updateWebhook", () =>
  client.updateWebhook({
    webhookId: hook?.webhookId,
    name: "renamed",
    url: `${receiver}/renamed`,
    eventTypes: ["memory_add", "memory_delete"],
  }),
);
await step("getWebhooks.afterUpdate", () => client.getWebhooks());

// ---- memories ---------------------------------------------------------------------------------------------------
const queued = await step("add.inferred", () =>
  client.add([{ role: "user", content: "I grow tomatoes on my balcony." }], { userId: "alice" }),
);
if (queued?.eventId) {
  await step("add.inferred.event", () =>
    until(() => event(queued.eventId), (e) => e.status !== "PENDING" && e.status !== "RUNNING", "the add"),
  );
}
const direct = await step("add.verbatim", () =>
  client.add([{ role: "user", content: "I bake bread on Sundays" }], {
    userId: "alice",
    infer: false,
    metadata: { snake_key: "kept as is" },
  }),
);
const bread = direct?.results?.[0]?.id;
// The two adds' events reach the webhook asynchronously (the worker drains the outbox): its deliveries are waited for
// through the delivery log (ours), so that the delete below does not cancel one still being made.
if (hook?.webhookId) {
  await until(
    () => deliveries(hook.webhookId),
    (page) => (page?.results ?? []).filter((d) => d.state === "delivered").length >= 2,
    "the two adds' webhook deliveries",
  ).catch(() => undefined); // test_webhooks says what arrived
}
await step("deleteWebhook", () => client.deleteWebhook({ webhookId: hook?.webhookId }));
await step("getWebhooks.afterDelete", () => client.getWebhooks());
await step("getAll", () => client.getAll({ filters: { user_id: "alice" }, page: 1, pageSize: 10 }));
await step("search", () => client.search("gardening vegetables", { filters: { user_id: "alice" }, topK: 1 }));
await step("get", () => client.get(bread));
await step("update", () => client.update(bread, { text: "I bake sourdough on Sundays" }));
await step("update.metadata", () => client.update(bread, { metadata: { snake_key: "changed" } }));
await step("get.afterUpdate", () => client.get(bread));
await step("history", () => client.history(bread));
await step("batchUpdate", () => client.batchUpdate([{ memoryId: bread, text: "I bake rye bread on Sundays" }]));
await step("get.afterBatchUpdate", () => client.get(bread));
await step("feedback", () =>
  client.feedback({ memoryId: bread, feedback: "NEGATIVE", feedbackReason: "not quite right" }),
);
const exportSchema = { type: "object", properties: { facts: { type: "array", items: { type: "string" } } } };
const madeExport = await step("createMemoryExport", () =>
  client.createMemoryExport({ schema: exportSchema, filters: { user_id: "alice" } }),
);
await step("getMemoryExport", () => client.getMemoryExport({ memoryExportId: madeExport?.id }));
await step("getMemoryExport.filters", () => client.getMemoryExport({ filters: { user_id: "alice" } }));
await step("users", () => client.users());
await step("users.page", () => client.users({ page: 1, pageSize: 1 }));

// ---- profiles ---------------------------------------------------------------------------------------------------
const profileSchema = {
  type: "object",
  properties: {
    home_city: { type: "string", description: "Where the user lives." },
    hobbies: { type: "array", items: { type: "string" }, description: "What the user does for fun." },
  },
};
await step("getProfile.notEnabled", () => client.getProfile({ entityId: "alice" }));
await step("getProfileSettings", () => client.getProfileSettings());
await step("updateProfileSettings", () =>
  client.updateProfileSettings({ enabled: true, schema: profileSchema, customInstructions: "Be brief." }),
);
await step("getProfileSettings.afterUpdate", () => client.getProfileSettings());
const job = await step("generateProfile", () => client.generateProfile({ entityId: "alice", idempotencyKey: "ts-1" }));
await step("generateProfile.replayed", () => client.generateProfile({ entityId: "alice", idempotencyKey: "ts-1" }));
await step("getProfileJob.statusUrl", () =>
  until(
    () => client.getProfileJob(job.statusUrl),
    (answer) => !["queued", "running"].includes(answer.job.status),
    "the profile job",
  ),
);
await step("getProfileJob.jobId", () => client.getProfileJob(job.jobId));
await step("getProfile", () =>
  until(() => client.getProfile({ entityId: "alice" }), (p) => p.status !== "pending", "the profile"),
);
const sample = await step("sampleProfiles", () => client.sampleProfiles({ limit: 5 }));
await step("getProfileJob.sample", () =>
  until(
    () => client.getProfileJob(sample.statusUrl),
    (answer) => !["queued", "running"].includes(answer.job.status),
    "the sample job",
  ),
);
await step("updateProfileSettings.off", () => client.updateProfileSettings({ enabled: false }));

// ---- the project -----------------------------------------------------------------------------------------------
await step("getProject.fields", () => client.getProject({ fields: ["customInstructions", "decay"] }));
await step("updateProject", () =>
  client.updateProject({
    customInstructions: "Keep food facts.",
    agentCustomInstructions: "Keep the agent's tools.",
    customCategories: [{ cooking: "Food and recipes" }],
    memoryDepth: "deep",
    usecaseSetting: "a cooking assistant",
    version: "v2",
    multilingual: true,
    decay: true,
  }),
);
await step("getProject", () => client.getProject({}));
await step("updateProject.enableGraph", () => client.updateProject({ enableGraph: true }));

// ---- deletes ------------------------------------------------------------------------------------------------
await step("delete", () => client.delete(bread));
await step("get.afterDelete", () => client.get(bread));
const tomato = (await client.getAll({ filters: { user_id: "alice" } })).results.map((m) => m.id);
await step("batchDelete", () => client.batchDelete(tomato));
await step("getAll.afterBatchDelete", () => client.getAll({ filters: { user_id: "alice" } }));

const linked = await client.add([{ role: "user", content: "linked note" }], { userId: "carol", infer: false });
await step("delete.deleteLinked", () => client.delete(linked.results[0].id, { deleteLinked: true }));

await client.add([{ role: "user", content: "bob's note" }], { userId: "bob", infer: false });
await client.add([{ role: "user", content: "bob's run note" }], { userId: "bob", runId: "r0", infer: false });
await step("deleteAll", () => client.deleteAll({ userId: "bob" }));
await step("getAll.afterDeleteAll", () => client.getAll({ filters: { user_id: "bob" } }));

await client.add([{ role: "user", content: "dora's note" }], { userId: "dora", infer: false });
const dora = (await client.users()).results.find((entity) => entity.name === "dora");
await step("deleteUser", () => client.deleteUser({ entity_type: "user", entity_id: dora?.id }));

await client.add([{ role: "user", content: "run note" }], { runId: "r1", infer: false });
await step("deleteUsers.runId", () => client.deleteUsers({ runId: "r1" }));
await step("add.appOnly", () => client.add([{ role: "user", content: "app note" }], { appId: "shop", infer: false }));
await step("getAll.app", () => client.getAll({ filters: { app_id: "shop" } }));
await step("deleteUsers.appId", () => client.deleteUsers({ appId: "shop" }));
await step("getAll.afterAppDelete", () => client.getAll({ filters: { app_id: "shop" } }));
await client.add([{ role: "user", content: "agent note" }], { agentId: "bot", infer: false });
await client.add([{ role: "user", content: "erin's note" }], { userId: "erin", infer: false });
await client.add([{ role: "user", content: "kiosk note" }], { appId: "kiosk", infer: false });
await client.add([{ role: "user", content: "erin at the kiosk" }], { userId: "erin", appId: "kiosk", infer: false });
await step("users.beforeDeleteUsers", () => client.users());
await step("deleteUsers", () => client.deleteUsers());
await step("users.afterDeleteUsers", () => client.users());
await step("getAll.afterDeleteUsers", () =>
  client.getAll({ filters: { OR: [{ app_id: "*" }, { user_id: "*" }, { agent_id: "*" }, { run_id: "*" }] } }),
);

// ---- errors as the client reports them ------------------------------------------------------------------
await step("get.unknown", () => client.get("00000000-0000-0000-0000-000000000000"));
await step("ping.badKey", () => new MemoryClient({ apiKey: "m0-not-a-key", host }).ping());

process.stdout.write(JSON.stringify({ methods, called: [...called].sort(), steps }) + "\n");
