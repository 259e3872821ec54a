"""What both backends wire the same way: the settings' values the services take, and the core services over the
stores each backend chose."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from mnemo.composition.auth import AccountStores, build_auth
from mnemo.language.en import english
from mnemo.ports.memory_namespaces import NamespaceStorage
from mnemo.ports.reranker import Reranker
from mnemo.services.configuration import ConfigurationService
from mnemo.services.decay import DecaySettings
from mnemo.services.memory import MemoryService
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.namespace_memory import open_memory_service
from mnemo.services.providers import ActiveProviders
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.selfhosted_entities import EntityService
from mnemo.services.service_set import Services
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.adapters.sqlite.memory_index import IndexTuning
    from mnemo.services.lazy import Lazy
    from mnemo.services.platform.features import PlatformFeatures


def index_tuning(settings: Settings) -> IndexTuning:
    """When the embedded index searches approximately (the local backend only)."""
    from mnemo.adapters.sqlite.memory_index import IndexTuning

    return IndexTuning(
        ann_min_rows=settings.index_ann_min_rows,
        ann_nprobe=settings.index_ann_nprobe,
        keyword_term_cap=settings.index_keyword_term_cap,
    )


def add_policy(settings: Settings, base: AddPolicy | None = None) -> AddPolicy:
    """What an add does beyond storing, on one surface (`base`: the platform's; the self-hosted default without)."""
    return replace(base or AddPolicy(), rules_beside_llm=settings.llm_rules_beside)


def self_hosted_memory_service(
    settings: Settings, storage: NamespaceStorage, providers: ActiveProviders
) -> MemoryService:
    """The self-hosted surface's memory service over the backend's `storage`, set up from the settings alike on
    every backend."""
    return open_memory_service(
        storage,
        providers,
        ranking_weights(settings),
        policy=add_policy(settings),
        reranker=reranker(settings),
        language=english(),
    )


def ranking_weights(settings: Settings) -> RankingWeights:
    return RankingWeights(semantic=settings.semantic_weight, keyword=settings.keyword_weight)


def reranker(settings: Settings) -> Reranker:
    """What `rerank=true` re-scores a search's candidates with: the learned fusion (NumPy: every backend has it)."""
    from mnemo.adapters.rerankers.learned_fusion import LearnedFusionReranker

    return LearnedFusionReranker()


def decay_settings(settings: Settings) -> DecaySettings:
    return DecaySettings(
        half_life_days=settings.decay_half_life_days,
        access_boost=settings.decay_access_boost,
        access_half_life_days=settings.decay_access_half_life_days,
    )


def core_services(
    settings: Settings,
    memory_service: MemoryService,
    configuration: ConfigurationService,
    stores: AccountStores,
    request_log: RequestLogService,
    *,
    serves_http: bool = True,
) -> Services:
    """The core services over the stores a backend chose."""
    auth = build_auth(settings, stores, warn=serves_http)
    return Services(
        memory_service=memory_service,
        configuration=configuration,
        accounts=auth.accounts,
        tokens=auth.tokens,
        sessions=auth.sessions,
        api_keys=auth.api_keys,
        authenticator=auth.authenticator,
        entities=EntityService(memory_service),
        request_log=request_log,
        rate_limiter=RateLimiter(
            {
                "register": settings.rate_limit_register,
                "login": settings.rate_limit_login,
                "refresh": settings.rate_limit_refresh,
            }
        ),
    )


def reembed_everything(memory_service: MemoryService, platform: Lazy[PlatformFeatures]) -> Callable[[], int]:
    """What a change of embedder (POST /configure) does: re-embed the self-hosted memories and every platform
    project's (building the platform's features, if nothing had yet). ConfigurationService is told it once the
    platform's features are given (it makes the providers their namespaces use)."""

    def reembed() -> int:
        return memory_service.reembed_all() + platform.get().namespaces.reembed_all()

    return reembed
