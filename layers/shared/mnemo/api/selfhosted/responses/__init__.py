"""Response models of the self-hosted routes, with their converters from domain objects (`Model.of(...)`).
The request bodies are in api/selfhosted/bodies.py; the pieces every surface shares (the error bodies,
`MessageOut`, `Timestamp`, `errors(...)`) in api/responses.py."""

from mnemo.api.selfhosted.responses.accounts import SetupStatus, TokenOut, UserAccount, UserApiKey, UserApiKeyCreated
from mnemo.api.selfhosted.responses.admin import (
    BundledProviders,
    ConfigurationOut,
    EntityDeleted,
    EntitySummary,
    ProviderSection,
    RequestLogOut,
)
from mnemo.api.selfhosted.responses.memories import (
    AddedMemory,
    AddResults,
    ListedMemory,
    MemoryChange,
    MemoryDetail,
    MemoryList,
    MemorySource,
    ScoreDetails,
    SearchHit,
    SearchResults,
    StoredMemory,
)

__all__ = [
    "AddResults",
    "AddedMemory",
    "BundledProviders",
    "ConfigurationOut",
    "EntityDeleted",
    "EntitySummary",
    "ListedMemory",
    "MemoryChange",
    "MemoryDetail",
    "MemoryList",
    "MemorySource",
    "ProviderSection",
    "RequestLogOut",
    "ScoreDetails",
    "SearchHit",
    "SearchResults",
    "SetupStatus",
    "StoredMemory",
    "TokenOut",
    "UserAccount",
    "UserApiKey",
    "UserApiKeyCreated",
]
