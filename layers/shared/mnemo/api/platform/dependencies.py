"""The platform's features as FastAPI dependencies, each typed by the service it gives (the core's are in
api/dependencies.py): only the platform's routers import them, and with them the platform's services. Each resolves
in the event loop (`in_loop`); a feature the backend does not offer answers 503."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from mnemo.api.dependencies import in_loop, platform_services
from mnemo.errors import UnavailableError
from mnemo.services.platform.dream.service import DreamService
from mnemo.services.platform.memories.project_memory import ProjectMemoryService
from mnemo.services.platform.profiles.service import ProfileService
from mnemo.services.platform.tenancy.events import EventService
from mnemo.services.platform.tenancy.project_entities import ProjectEntityService
from mnemo.services.platform.tenancy.reports import ReportService
from mnemo.services.platform.tenancy.service import TenancyService
from mnemo.services.platform.unavailable import Unavailable
from mnemo.services.platform.webhooks.service import WebhookService


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
    if isinstance(webhooks, Unavailable):
        raise UnavailableError(webhooks.reason)
    return webhooks


def dream_service(request: Request) -> DreamService:
    return platform_services(request).dream


def profile_service(request: Request) -> ProfileService:
    profiles = platform_services(request).profiles
    if isinstance(profiles, Unavailable):
        raise UnavailableError(profiles.reason)
    return profiles


TenancyServiceDep = Annotated[TenancyService, Depends(in_loop(tenancy_service))]
ProjectMemoryServiceDep = Annotated[ProjectMemoryService, Depends(in_loop(project_memory_service))]
EventServiceDep = Annotated[EventService, Depends(in_loop(event_service))]
ProjectEntityServiceDep = Annotated[ProjectEntityService, Depends(in_loop(project_entity_service))]
ReportServiceDep = Annotated[ReportService, Depends(in_loop(report_service))]
WebhookServiceDep = Annotated[WebhookService, Depends(in_loop(webhook_service))]
ProfileServiceDep = Annotated[ProfileService, Depends(in_loop(profile_service))]
DreamServiceDep = Annotated[DreamService, Depends(in_loop(dream_service))]
