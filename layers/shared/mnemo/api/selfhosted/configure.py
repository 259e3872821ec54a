"""Self-hosted configuration routes: /configure and /configure/providers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends

from mnemo.api.dependencies import Configuration
from mnemo.api.security import authenticated, require_admin

router = APIRouter(tags=["configuration"], dependencies=[Depends(authenticated)])


@router.get("/configure", summary="The current configuration, secrets redacted")
def get_configuration(configuration: Configuration) -> dict[str, Any]:
    return configuration.redacted()


@router.post(
    "/configure",
    summary="Change the LLM, the embedder or the custom instructions (admin)",
    dependencies=[Depends(require_admin)],
)
def set_configuration(
    configuration: Configuration,
    body: dict[str, Any] = Body(  # noqa: B008 - FastAPI's way to declare a free-form JSON body
        examples=[{"llm": {"provider": "openai", "config": {"model": "gpt-4.1-mini", "api_key": "sk-…"}}}]
    ),
) -> dict[str, str]:
    configuration.update(body)
    return {"message": "Configuration set successfully"}


@router.get("/configure/providers", summary="The LLM and embedder providers bundled in this build")
def list_providers(configuration: Configuration) -> dict[str, list[str]]:
    return configuration.bundled()
