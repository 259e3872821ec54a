"""The services a route uses, as FastAPI dependencies: each typed by the service it gives. The app keeps the
composition root's Services in its state (create_app); a route never sees more than the services it names."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from mnemo.errors import ServerMisconfiguredError, UnavailableError
from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.configuration import ConfigurationService
from mnemo.services.entities import EntityService
from mnemo.services.memory_service import MemoryService
from mnemo.services.platform.dream import DreamService
from mnemo.services.platform.entities import ProjectEntityService
from mnemo.services.platform.events import EventService
from mnemo.services.platform.profiles import ProfileService
from mnemo.services.platform.project_memory import ProjectMemoryService
from mnemo.services.platform.reports import ReportService
from mnemo.services.platform.services import PlatformServices
from mnemo.services.platform.tenancy import TenancyService
from mnemo.services.platform.webhooks import WebhookService
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.service_set import Services
from mnemo.services.sessions import SessionService
from mnemo.services.tokens import TokenService

SERVICES_STATE = "services"


def services_of(request: Request) -> Services:
    services: Services = getattr(request.app.state, SERVICES_STATE)
    return services


def memory_service(request: Request) -> MemoryService:
    return services_of(request).memory_service


def configuration_service(request: Request) -> ConfigurationService:
    return services_of(request).configuration


def account_service(request: Request) -> AccountService:
    return services_of(request).accounts


def token_service(request: Request) -> TokenService:
    return services_of(request).tokens


def session_service(request: Request) -> SessionService:
    return services_of(request).sessions


def api_key_service(request: Request) -> ApiKeyService:
    return services_of(request).api_keys


def entity_service(request: Request) -> EntityService:
    return services_of(request).entities


def request_log_service(request: Request) -> RequestLogService:
    return services_of(request).request_log


def authenticator(request: Request) -> Authenticator:
    return services_of(request).authenticator


def rate_limiter(request: Request) -> RateLimiter:
    return services_of(request).rate_limiter


def platform_services(request: Request) -> PlatformServices:
    platform = services_of(request).platform
    if platform is None:
        raise ServerMisconfiguredError("The platform API is not available on this backend.")
    return platform


def tenancy_service(request: Request) -> TenancyService:
    return platform_services(request).tenancy


def project_memory_service(request: Request) -> ProjectMemoryService:
    return platform_services(request).project_memory


def event_service(request: Request) -> EventService:
    return platform_services(request).events


def project_entity_service(request: Request) -> ProjectEntityService:
    return platform_services(request).entities


def report_service(request: Request) -> ReportService:
    return platform_services(request).reports


def webhook_service(request: Request) -> WebhookService:
    webhooks = platform_services(request).webhooks
    if webhooks is None:
        raise UnavailableError("Webhooks are not available on this backend.")
    return webhooks


def dream_service(request: Request) -> DreamService:
    return platform_services(request).dream


def profile_service(request: Request) -> ProfileService:
    profiles = platform_services(request).profiles
    if profiles is None:
        raise UnavailableError("Profiles are not available on this backend.")
    return profiles


MemoryServiceDep = Annotated[MemoryService, Depends(memory_service)]
ConfigurationServiceDep = Annotated[ConfigurationService, Depends(configuration_service)]
AccountServiceDep = Annotated[AccountService, Depends(account_service)]
TokenServiceDep = Annotated[TokenService, Depends(token_service)]
SessionServiceDep = Annotated[SessionService, Depends(session_service)]
ApiKeyServiceDep = Annotated[ApiKeyService, Depends(api_key_service)]
EntityServiceDep = Annotated[EntityService, Depends(entity_service)]
RequestLogServiceDep = Annotated[RequestLogService, Depends(request_log_service)]
TenancyServiceDep = Annotated[TenancyService, Depends(tenancy_service)]
ProjectMemoryServiceDep = Annotated[ProjectMemoryService, Depends(project_memory_service)]
EventServiceDep = Annotated[EventService, Depends(event_service)]
ProjectEntityServiceDep = Annotated[ProjectEntityService, Depends(project_entity_service)]
ReportServiceDep = Annotated[ReportService, Depends(report_service)]
WebhookServiceDep = Annotated[WebhookService, Depends(webhook_service)]
ProfileServiceDep = Annotated[ProfileService, Depends(profile_service)]
DreamServiceDep = Annotated[DreamService, Depends(dream_service)]
