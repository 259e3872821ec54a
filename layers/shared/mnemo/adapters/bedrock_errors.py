"""botocore errors from Amazon Bedrock turned into ProviderError codes."""

from __future__ import annotations

from mnemo.errors import ProviderError

_CODES = {
    "AccessDeniedException": "provider_auth_failed",
    "UnrecognizedClientException": "provider_auth_failed",
    "ExpiredTokenException": "provider_auth_failed",
    "ThrottlingException": "provider_rate_limited",
    "ServiceQuotaExceededException": "provider_rate_limited",
    "ModelTimeoutException": "provider_timeout",
    "ValidationException": "provider_bad_request",
    "ResourceNotFoundException": "provider_bad_request",
    "ModelNotReadyException": "provider_unavailable",
    "ServiceUnavailableException": "provider_unavailable",
    "InternalServerException": "provider_unavailable",
}


def provider_error(exc: Exception) -> ProviderError:
    response = getattr(exc, "response", None) or {}
    code = response.get("Error", {}).get("Code", "") if isinstance(response, dict) else ""
    kind = _CODES.get(code, "provider_unavailable")
    return ProviderError(f"Amazon Bedrock failed ({code or type(exc).__name__}).", kind)


def boto_errors() -> tuple[type[Exception], ...]:
    """The exceptions a boto3 call raises on purpose (imported lazily: botocore is optional)."""
    from botocore.exceptions import BotoCoreError, ClientError

    return (BotoCoreError, ClientError)
