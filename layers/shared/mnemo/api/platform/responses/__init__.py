"""Response models of the platform surface, and their converters from domain objects.

- `common`: the DRF page `Page[T]`, the `{"results": ...}` envelopes, and `select` (the `fields` projection).
- `memories`: memories, search hits, history, and the answers of adds and deletes.
- `project_data`: ping, entities, events, exports, summary, stats, feedback.
- `tenancy`: organizations, projects, members and project API keys.

Conventions (those of `mnemo.api.responses`): keys are declared in wire order; a key sent only when it
applies is typed `T | SkipJsonSchema[None] = None` (`T | None = None` when it can also be null), the route sets
`response_model_exclude_unset=True`, and converters set only the keys that apply. A key that is always sent is
required. Timestamps are `Timestamp` (`mnemo.domain.timefmt.iso` on the wire).
"""
