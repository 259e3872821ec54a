"""What the `azure_openai` LLM and embedder share: Azure OpenAI's REST API over OpenAIHttp.

A deployment answers at `{endpoint}/openai/deployments/{deployment}/<operation>?api-version={api_version}`,
authenticated by `api-key: <key>`, or by `Authorization: Bearer <token>` for a Microsoft Entra ID
(`azure_ad_token`) token; bodies, replies and errors are OpenAI's (plus the content filter's 400).
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from mnemo.adapters.openai_http import OpenAIHttp, Pace
from mnemo.adapters.provider_config import ApiKey, BaseUrl, CallLimits, header_safe

DEFAULT_API_VERSION = "2024-10-21"

# Azure's deployment names: letters, digits, '-', '_' and '.', up to 64 characters (safe in a URL path).
Deployment = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]
ApiVersion = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}(-preview)?$")]
AzureApiKey = Annotated[ApiKey, Field(min_length=1)]
AzureAdToken = Annotated[str, Field(min_length=1, max_length=16_384), AfterValidator(header_safe)]


class AzureOpenAIAccess(BaseModel):
    """Where a deployment is and how to authenticate: exactly one of `api_key` and `azure_ad_token`."""

    model_config = ConfigDict(extra="forbid")
    endpoint: BaseUrl  # https://<resource>.openai.azure.com
    deployment: Deployment
    api_version: ApiVersion = DEFAULT_API_VERSION
    api_key: AzureApiKey | None = None  # sent as `api-key`
    azure_ad_token: AzureAdToken | None = None  # sent as `Authorization: Bearer …`

    @model_validator(mode="before")
    @classmethod
    def _model_names_the_deployment(cls, data: Any) -> Any:
        """`model` (what other providers, and the template's model id, name) is the deployment's name on Azure."""
        if not isinstance(data, dict) or "model" not in data:
            return data
        given = dict(data)
        model = given.pop("model")
        deployment = given.setdefault("deployment", model)
        if deployment != model:
            raise ValueError(
                f"model {model!r} and deployment {deployment!r} differ: on Azure the deployment is the model"
            )
        return given

    @model_validator(mode="after")
    def _one_credential(self) -> Self:
        if (self.api_key is None) == (self.azure_ad_token is None):
            raise ValueError("give exactly one of api_key and azure_ad_token")
        return self


class AzureOpenAIConfig(CallLimits, AzureOpenAIAccess):
    """A deployment's place and credential, then the shared timeout and retry keys (provider_config.CallLimits)."""

    def deployment_http(self, pace: Pace | None) -> OpenAIHttp:
        """A client for the deployment's operations (`chat/completions`, `embeddings`)."""
        return OpenAIHttp(
            f"{self.endpoint.rstrip('/')}/openai/deployments/{self.deployment}",
            self.azure_ad_token,  # None when an api_key is given: then no Authorization header
            self.timeout,
            self.retry_policy(),
            pace,
            headers={"api-key": self.api_key} if self.api_key is not None else None,
            params={"api-version": self.api_version},
            not_found_advice="Check endpoint and deployment (Azure answers 404 for a deployment that does not exist).",
        )
