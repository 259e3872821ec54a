"""Request-scoped access to the container built by the composition root."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from mnemo.bootstrap import Container
from mnemo.services.configuration import ConfigurationService
from mnemo.services.memory_service import MemoryService


def get_container(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


def get_memories(request: Request) -> MemoryService:
    return get_container(request).memories


def get_configuration(request: Request) -> ConfigurationService:
    return get_container(request).configuration


Services = Annotated[Container, Depends(get_container)]
Memories = Annotated[MemoryService, Depends(get_memories)]
Configuration = Annotated[ConfigurationService, Depends(get_configuration)]
