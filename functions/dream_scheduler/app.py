"""Lambda entry of the Dream scheduler: invoked by its EventBridge Scheduler schedule, it queues a Synthesis run
for each project with users due (mnemo.entrypoints.lambda_dream)."""

from mnemo.entrypoints.lambda_dream import dream_schedule_entry

entry = dream_schedule_entry()
handler = entry.handler
warm = entry.warm
