"""The web console's sign-in for platform users: how long a session and an invitation last, and how many failed
sign-ins are let through."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ConsoleSettings(BaseSettings):
    """Console sessions, invitations and sign-in throttling."""

    model_config = SettingsConfigDict(env_prefix="MNEMO_", extra="ignore", populate_by_name=True)

    console_session_idle_minutes: int = Field(
        default=480,
        gt=0,
        le=10080,
        description="Minutes a console session may go unused before it ends (each use moves it on).",
    )
    console_session_days: int = Field(
        default=7, gt=0, le=90, description="Days a console session lasts at most after sign-in, used or not."
    )
    console_invitation_days: int = Field(
        default=7, gt=0, le=90, description="Days an invitation's one-time accept link stays valid."
    )
    console_sign_in_max_failures: int = Field(
        default=5,
        gt=0,
        le=1000,
        description="Failed console sign-ins allowed per email, and per client address, within the window; "
        "further tries are refused (429) until the oldest failure leaves it.",
    )
    console_sign_in_window_minutes: int = Field(
        default=15, gt=0, le=1440, description="Minutes over which failed console sign-ins are counted."
    )
