"""The box that seals the provider keys the configuration stores (mnemo.adapters.crypto.fernet_box), with its key:
MNEMO_CONFIG_ENCRYPTION_KEY when set (on AWS read from the SSM parameter config_encryption_key_parameter names, by
mnemo.composition.secrets), else, on the embedded backend, a key file in the data dir made on first need (as the JWT
secret is). The AWS backend has no data dir to keep one in: there, storing a provider key without the setting is a
ConfigurationError that says what to set."""

from __future__ import annotations

from mnemo.adapters.crypto.fernet_box import FernetSecretBox, key_file
from mnemo.errors import ConfigurationError
from mnemo.settings import Settings

KEY_SETTING = "MNEMO_CONFIG_ENCRYPTION_KEY"


def local_secret_box(settings: Settings) -> FernetSecretBox:
    given = settings.secret("config_encryption_key")
    if given is not None:
        return FernetSecretBox(lambda: given, KEY_SETTING)
    path = settings.config_encryption_key_path
    return FernetSecretBox(lambda: key_file(path), str(path))


def aws_secret_box(settings: Settings) -> FernetSecretBox:
    given = settings.secret("config_encryption_key")

    def key() -> str:
        if given is None:
            raise ConfigurationError(
                "A provider key is stored encrypted, and this deployment has no key to encrypt it with: set "
                "MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER to an SSM SecureString parameter holding a Fernet key."
            )
        return given

    return FernetSecretBox(key, f"{KEY_SETTING} (MNEMO_CONFIG_ENCRYPTION_KEY_PARAMETER)")
