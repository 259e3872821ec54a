"""What the configurations of the bundled providers share: the keys every HTTP provider (`openai`, `ollama`,
`gemini`, `anthropic`, `azure_openai`) reads to reach its model, the keys of its timeouts and retries, the
`bedrock` providers' model and region, the checks of each key, and how a provider turns them into its client.

A provider's config class (beside the provider, in embedders/ and llms/) names only what differs: its defaults
(the model, the base URL, a longer timeout where a local model may load on the first call) and its own keys
(dimensions, batch size, temperature, ...). The keys shared come first in each class, in the order below. Nothing is
read from the environment: a provider's configuration is what the configuration service stores, validated by
mnemo.adapters.registry.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from mnemo.adapters.openai_http import DEFAULT_MAX_RETRIES, OpenAIHttp, Pace, RetryPolicy

# How many retries at most (0: none), and the seconds the whole call may take, retries included (None: twice the
# per-attempt `timeout`).
MaxRetries = Annotated[int, Field(ge=0, le=10, strict=True)]
TotalTimeout = Annotated[float, Field(gt=0, allow_inf_nan=False)] | None


def header_safe(value: str) -> str:
    """A value sent in an HTTP header (the API key, as `Authorization: Bearer …`): printable ASCII only."""
    if not (value.isascii() and value.isprintable()):
        raise ValueError("must be printable ASCII: it is sent in an HTTP header")
    return value


ApiKey = Annotated[str, Field(max_length=1_024), AfterValidator(header_safe)]
ModelName = Annotated[str, Field(min_length=1, max_length=255)]
BaseUrl = Annotated[str, Field(min_length=1, max_length=2_048, pattern=r"^https?://")]

Client = TypeVar("Client", bound=OpenAIHttp)

DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434"  # the `ollama` embedder's and LLM's


class HostedModel(BaseModel):
    """Which model, at which base URL, with which API key (none: no authentication header is sent, e.g. behind a
    proxy that adds it). Each provider's config gives `model` and `base_url` their defaults."""

    model_config = ConfigDict(extra="forbid")
    model: ModelName
    api_key: ApiKey | None = None
    base_url: BaseUrl


class CallLimits(BaseModel):
    """How long a call may take and how often it is tried again: `timeout` seconds per attempt; at most
    `max_retries` retries of a 429, 500, 502, 503, 504, dropped connection or timeout; `total_timeout` seconds for
    the whole call (an embedder's: one batch), retries included, None: twice `timeout`."""

    model_config = ConfigDict(extra="forbid")
    timeout: float = 60.0
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES
    total_timeout: TotalTimeout = None

    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy.for_timeout(self.timeout, self.max_retries, self.total_timeout)


class HttpProviderConfig(CallLimits, HostedModel):
    """model, api_key, base_url, then timeout, max_retries, total_timeout."""

    def client(self, kind: type[Client], pace: Pace | None) -> Client:
        """The provider's HTTP client (OpenAIHttp, or an API's own such as GeminiHttp) for these keys."""
        return kind(self.base_url, self.api_key, self.timeout, self.retry_policy(), pace)


class BedrockModel(BaseModel):
    """A model of Amazon Bedrock, in `region` (None: boto3's default), called through boto3's bedrock-runtime."""

    model_config = ConfigDict(extra="forbid")
    model: str
    region: str | None = None

    def runtime(self, client: Any | None) -> Any:
        """The bedrock-runtime client given, or one made in `region` (boto3 is imported only then: it is optional)."""
        if client is not None:
            return client
        import boto3

        return boto3.client("bedrock-runtime", region_name=self.region)
