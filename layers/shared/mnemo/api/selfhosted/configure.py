"""Self-hosted configuration routes: /configure, /configure/providers and /generate-instructions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends
from pydantic import BaseModel, Field

from mnemo.api.dependencies import ConfigurationServiceDep
from mnemo.api.responses import MessageOut, errors
from mnemo.api.routing import TypedRoute
from mnemo.api.security import authenticated, require_admin
from mnemo.api.selfhosted.bodies import UseCase
from mnemo.api.selfhosted.responses import BundledProviders, ConfigurationOut
from mnemo.services.instructions import generate_instructions

router = APIRouter(
    route_class=TypedRoute, tags=["configuration"], dependencies=[Depends(authenticated)], responses=errors(401)
)


@router.get(
    "/configure",
    summary="The current configuration, secrets redacted",
    response_model_exclude_unset=True,  # shown as stored: a section's missing key stays missing
)
def get_configuration(configuration: ConfigurationServiceDep) -> ConfigurationOut:
    return ConfigurationOut.of(configuration.redacted())


@router.post(
    "/configure",
    summary="Change the LLM, the embedder or the custom instructions (admin)",
    dependencies=[Depends(require_admin)],
    responses=errors(400, 403, 502),
)
def set_configuration(
    configuration: ConfigurationServiceDep,
    body: dict[str, Any] = Body(  # noqa: B008 - FastAPI's way to declare a free-form JSON body
        examples=[{"llm": {"provider": "openai", "config": {"model": "gpt-4.1-mini", "api_key": "sk-…"}}}]
    ),
) -> MessageOut:
    configuration.update(body)
    return MessageOut(message="Configuration set successfully")


@router.get("/configure/providers", summary="The LLM and embedder providers bundled in this build")
def list_providers(configuration: ConfigurationServiceDep) -> BundledProviders:
    return BundledProviders.of(configuration.bundled())


class GeneratedInstructions(BaseModel):
    custom_instructions: str = Field(description="Instructions for the extraction (POST /configure takes them).")
    test_message: str = Field(description="A message to try them with.", examples=["I like to hike on weekends."])


@router.post(
    "/generate-instructions",
    summary="Custom instructions for a use case: written by the LLM when one is configured, else a template",
    responses=errors(502),
)
def generate(body: UseCase, configuration: ConfigurationServiceDep) -> GeneratedInstructions:
    instructions, test_message = generate_instructions(configuration.providers.get().llm, body.use_case)
    return GeneratedInstructions(custom_instructions=instructions, test_message=test_message)
