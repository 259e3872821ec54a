"""The services a route uses, as FastAPI dependencies: each typed by the service it gives. The app keeps the
composition root's ServedServices in its state (create_app); a route never sees more than the services it names.
These are the core's; the platform's features have theirs in api/platform/dependencies.py, so that a function
serving no platform route never imports the platform's services.

Each `...Dep` resolves in the event loop (`in_loop`): FastAPI runs a synchronous dependency in its thread pool, and
under load each such trip costs CPU (the hand-off and the wake-up of a worker thread, under the GIL) for what is an
attribute read."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, Request

from mnemo.services.accounts import AccountService
from mnemo.services.api_keys import ApiKeyService
from mnemo.services.authentication import Authenticator
from mnemo.services.configuration import ConfigurationService
from mnemo.services.memory import MemoryService
from mnemo.services.rate_limiter import RateLimiter
from mnemo.services.request_log import RequestLogService
from mnemo.services.selfhosted_entities import EntityService
from mnemo.services.sessions import SessionService
from mnemo.services.tokens import TokenService
from mnemo.services.workers import Supervisor

if TYPE_CHECKING:
    from mnemo.services.platform.features import PlatformFeatures
    from mnemo.services.platform.served import ServedServices

SERVICES_STATE = "services"

T = TypeVar("T")


def in_loop(accessor: Callable[[Request], T]) -> Callable[[Request], Coroutine[Any, Any, T]]:
    """The accessor as an async dependency, so that FastAPI calls it in the event loop (it must not block: these
    only read the app's state and raise a typed error). Its name is kept for the OpenAPI ids and tracebacks."""

    async def resolve(request: Request) -> T:
        return accessor(request)

    resolve.__name__ = resolve.__qualname__ = accessor.__name__
    return resolve


def services_of(request: Request) -> ServedServices:
    services: ServedServices = getattr(request.app.state, SERVICES_STATE)
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


def workers(request: Request) -> Supervisor:
    return services_of(request).workers


def platform_services(request: Request) -> PlatformFeatures:
    return services_of(request).platform


MemoryServiceDep = Annotated[MemoryService, Depends(in_loop(memory_service))]
ConfigurationServiceDep = Annotated[ConfigurationService, Depends(in_loop(configuration_service))]
AccountServiceDep = Annotated[AccountService, Depends(in_loop(account_service))]
TokenServiceDep = Annotated[TokenService, Depends(in_loop(token_service))]
SessionServiceDep = Annotated[SessionService, Depends(in_loop(session_service))]
ApiKeyServiceDep = Annotated[ApiKeyService, Depends(in_loop(api_key_service))]
EntityServiceDep = Annotated[EntityService, Depends(in_loop(entity_service))]
RequestLogServiceDep = Annotated[RequestLogService, Depends(in_loop(request_log_service))]
WorkersDep = Annotated[Supervisor, Depends(in_loop(workers))]
