"""What both backends wire the same way: the services over the stores each backend chose."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo.composition.auth import AccountStores, build_auth
from mnemo.composition.container import Container
from mnemo.ports.reranker import Reranker
from mnemo.services.configuration import ConfigurationService
from mnemo.services.decay import DecaySettings
from mnemo.services.entities import EntityService
from mnemo.services.memory import MemoryService
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.namespace_memory import NamespaceMemoryServices
from mnemo.services.platform.services import PlatformServices
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.adapters.sqlite.memory_index import IndexTuning


def index_tuning(settings: Settings) -> IndexTuning:
    """When the embedded index searches approximately (the local backend only)."""
    from mnemo.adapters.sqlite.memory_index import IndexTuning

    return IndexTuning(
        ann_min_rows=settings.index_ann_min_rows,
        ann_nprobe=settings.index_ann_nprobe,
        keyword_term_cap=settings.index_keyword_term_cap,
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


def assemble(
    settings: Settings,
    memory_service: MemoryService,
    configuration: ConfigurationService,
    stores: AccountStores,
    request_log: RequestLogService,
    platform: PlatformServices | None,
    *,
    serves_http: bool = True,
) -> Container:
    """The container; a change of embedder (POST /configure) re-embeds the self-hosted memories and every
    platform project's."""
    auth = build_auth(settings, stores, warn=serves_http)
    namespaces = platform.namespaces if platform is not None else None
    configuration.on_embedder_change = lambda: reembed_everything(memory_service, namespaces)
    return Container(
        settings=settings,
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
        platform=platform,
    )


def reembed_everything(memory_service: MemoryService, namespaces: NamespaceMemoryServices | None) -> int:
    count = memory_service.reembed_all()
    if namespaces is not None:
        count += namespaces.reembed_all()
    return count
