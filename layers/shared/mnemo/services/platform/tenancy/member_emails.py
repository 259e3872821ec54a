"""Who an email names when an OWNER adds a member or makes a key for one: a user the platform knows, or (adding a
member) an email with no user yet, invited instead (mnemo.services.platform.console_accounts.invitations) so no
one gets a role, or a key, for an address nobody has shown to be theirs."""

from __future__ import annotations

from mnemo.domain.tenancy import PlatformUser, Role, is_email, normal_email
from mnemo.errors import ValidationError
from mnemo.ports.tenancy_store import DirectoryStore
from mnemo.services.platform.console_accounts.invitations import Invitations


def _address(email: object) -> str:
    if not isinstance(email, str) or not is_email(email):
        raise ValidationError("A valid email is required.")
    return normal_email(email)


def known_user(store: DirectoryStore, email: object) -> PlatformUser:
    """The user with this email; ValidationError when none (no user is made here)."""
    address = _address(email)
    existing = store.user_by_email(address)
    if existing is None:
        raise ValidationError(f"{address} is not a member of this project.")
    return existing


def known_or_invited(
    store: DirectoryStore,
    invitations: Invitations,
    inviter: PlatformUser,
    scope: tuple[str, str | None],
    email: object,
    role: Role,
) -> PlatformUser | None:
    """The user with this email, to be made a member at once; None when there is none and the email was invited
    to `scope` (organization id, project id or None) instead."""
    address = _address(email)
    existing = store.user_by_email(address)
    if existing is None:
        org_id, project_id = scope
        invitations.create(org_id, project_id, address, role, inviter.id)
    return existing
