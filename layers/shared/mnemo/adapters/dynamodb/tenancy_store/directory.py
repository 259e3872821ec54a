"""The platform's directory on the accounts table (mnemo.ports.tenancy_store.DirectoryStore): users,
organizations, projects, their members, and project keys.

Writes that must not double anything (a user's email, a key's hash, a new organization or project with its
owner) are conditional transactions.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, text
from mnemo.adapters.dynamodb.codec import key_of
from mnemo.adapters.dynamodb.operations import TransactionCancelledError, fitting
from mnemo.adapters.dynamodb.tenancy_store.items import (
    member_item,
    org_item,
    org_of,
    org_of_user_item,
    platform_user_item,
    platform_user_of,
    project_item,
    project_key_item,
    project_key_of,
    project_of,
    project_of_user_item,
)
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    EVENT_ID,
    KEY_OF_PROJECT,
    MEMBER,
    ORG_OF_USER,
    PROJECT_OF_ORG,
    PROJECT_OF_USER,
    events_pk,
    export_parts_pk,
    exports_pk,
    hash_key,
    key_item_key,
    key_of_project_key,
    member_key,
    org_item_key,
    org_of_user_key,
    org_pk,
    platform_email_key,
    platform_user_key,
    project_item_key,
    project_of_org_key,
    project_of_user_key,
    project_pk,
    unfinished_marker,
)
from mnemo.adapters.dynamodb.tenancy_store.table import TenancyTable
from mnemo.domain.tenancy import Member, Organization, PlatformUser, Project, ProjectKey, Role
from mnemo.errors import ConflictError


class DynamoDirectoryStore(TenancyTable):
    # ---- users ----

    def user_by_email(self, email: str) -> PlatformUser | None:
        claim = self._ops.get(platform_email_key(email))
        return None if claim is None else self.user_by_id(text(claim, "user_id"))

    def user_by_id(self, user_id: str) -> PlatformUser | None:
        item = self._ops.get(platform_user_key(user_id))
        return None if item is None else platform_user_of(item)

    def add_user(self, user: PlatformUser) -> PlatformUser:
        """The email claim and the user in one transaction: of two concurrent sign-ups one user is stored."""
        claim = {**platform_email_key(user.email), **attributes(user_id=user.id)}
        try:
            self._ops.transact([self._ops.put_new(claim), self._ops.put_new(platform_user_item(user))])
        except TransactionCancelledError:
            existing = self.user_by_email(user.email)
            if existing is None:
                raise ConflictError(f"A platform user with id {user.id} already exists.") from None
            return existing
        return user

    def _users(self, user_ids: Iterable[str]) -> dict[str, PlatformUser]:
        found = self._ops.batch_get([platform_user_key(u) for u in user_ids])
        return {text(item, "id"): platform_user_of(item) for item in found}

    # ---- organizations ----

    def add_org(self, org: Organization, owner: PlatformUser) -> None:
        try:
            self._ops.transact(
                [
                    self._ops.put_new(org_item(org)),
                    self._ops.put(member_item(org_pk(org.id), owner.id, Role.OWNER, self._seq.next())),
                    self._ops.put(org_of_user_item(owner.id, org.id)),
                ]
            )
        except TransactionCancelledError:
            raise ConflictError(f"An organization with id {org.id} already exists.") from None

    def get_org(self, org_id: str) -> Organization | None:
        item = self._ops.get(org_item_key(org_id))
        return None if item is None else org_of(item)

    def save_org(self, org: Organization) -> None:
        """Overwrite a stored organization (one deleted meanwhile stays deleted)."""
        self._ops.conditionally("put_item", Item=org_item(org), ConditionExpression="attribute_exists(pk)")

    def orgs_of(self, user_id: str) -> list[Organization]:
        pointers = self._ops.partition(text(platform_user_key(user_id), "pk"), ORG_OF_USER)
        found = self._ops.batch_get([org_item_key(text(p, "org_id")) for p in pointers])
        return sorted((org_of(item) for item in found), key=lambda o: (o.created_at, o.id))

    def delete_org(self, org_id: str) -> None:
        doomed = self._ops.partition(org_pk(org_id))
        members = [text(m, "user_id") for m in doomed if text(m, "sk").startswith(MEMBER)]
        self._ops.delete_many([*doomed, *(org_of_user_item(user_id, org_id) for user_id in members)])

    def org_members(self, org_id: str) -> list[Member]:
        return self._members(org_pk(org_id), org_id)

    def set_org_member(self, org_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member(org_pk(org_id), user.id, role)
        self._ops.client.put_item(TableName=self._ops.table, Item=org_of_user_item(user.id, org_id))

    def remove_org_member(self, org_id: str, user_id: str) -> bool:
        removed = self._remove_member(org_pk(org_id), user_id)
        self._ops.delete(org_of_user_key(user_id, org_id))
        return removed

    # ---- projects ----

    def add_project(self, project: Project, owner: PlatformUser) -> None:
        pointer = {**project_of_org_key(project.org_id, project.id), **attributes(project_id=project.id)}
        try:
            self._ops.transact(
                [
                    self._ops.put_new(project_item(project)),
                    self._ops.put(pointer),
                    self._ops.put(member_item(project_pk(project.id), owner.id, Role.OWNER, self._seq.next())),
                    self._ops.put(project_of_user_item(owner.id, project.id)),
                ]
            )
        except TransactionCancelledError:
            raise ConflictError(f"A project with id {project.id} already exists.") from None

    def get_project(self, project_id: str) -> Project | None:
        item = self._ops.get(project_item_key(project_id))
        return None if item is None else project_of(item)

    def projects_of_org(self, org_id: str) -> list[Project]:
        pointers = self._ops.partition(org_pk(org_id), PROJECT_OF_ORG)
        found = self._ops.batch_get([project_item_key(text(p, "project_id")) for p in pointers])
        return sorted((project_of(item) for item in found), key=lambda p: (p.created_at, p.id))

    def projects_of_member(self, user_id: str) -> list[Project]:
        pointers = self._ops.partition(text(platform_user_key(user_id), "pk"), PROJECT_OF_USER)
        found = self._ops.batch_get([project_item_key(text(p, "project_id")) for p in pointers])
        return sorted((project_of(item) for item in found), key=lambda p: (p.created_at, p.id))

    def save_project(self, project: Project) -> None:
        """Overwrite a stored project (a project deleted meanwhile stays deleted)."""
        self._ops.conditionally(
            "put_item", Item=fitting(project_item(project)), ConditionExpression="attribute_exists(pk)"
        )

    def delete_project(self, project_id: str) -> None:
        """Everything of the project, in batches: the events' by-id pointers first (a worker finishing an add then
        writes nothing back: see DynamoEventStore.update_event), then the events, exports and other records, then
        its members and keys, and the project item with the org's pointer to it last. A delete interrupted midway
        leaves a project its owners can still reach with their keys, and deleting it again finishes the job."""
        pointers: list[Item] = []
        records: list[Item] = []
        access: list[Item] = []
        last: list[Item] = []
        for item in self._ops.partition(project_pk(project_id)):
            sk, item_key = text(item, "sk"), key_of(item)
            if sk == "PROJ":
                last = [project_of_org_key(text(item, "org_id"), project_id), item_key]
            elif sk.startswith(EVENT_ID):
                pointers.append(item_key)
            elif sk.startswith((KEY_OF_PROJECT, MEMBER)):
                if sk.startswith(KEY_OF_PROJECT):
                    access += [key_item_key(text(item, "key_id")), hash_key(text(item, "key_hash"))]
                else:
                    access.append(project_of_user_key(text(item, "user_id"), project_id))
                access.append(item_key)
            else:
                records.append(item_key)
        for item in self._ops.partition(events_pk(project_id)):
            records.append(key_of(item))
            records.append(unfinished_marker(project_id, text(item, "sk")))  # deleting an absent one is a no-op
        for partition in (exports_pk(project_id), export_parts_pk(project_id)):
            records.extend(key_of(i) for i in self._ops.partition(partition))
        for batch in (pointers, records, access, last):
            self._ops.delete_many(batch)

    def project_members(self, project_id: str) -> list[Member]:
        return self._members(project_pk(project_id), project_id)

    def set_project_member(self, project_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member(project_pk(project_id), user.id, role)
        self._ops.client.put_item(TableName=self._ops.table, Item=project_of_user_item(user.id, project_id))

    def remove_project_member(self, project_id: str, user_id: str) -> bool:
        removed = self._remove_member(project_pk(project_id), user_id)
        self._ops.delete(project_of_user_key(user_id, project_id))
        return removed

    # ---- members (both kinds): items `MEMBER#<user id>` in the org's or project's partition ----

    def _members(self, pk: str, scope_id: str) -> list[Member]:
        rows = sorted(self._ops.partition(pk, MEMBER), key=lambda i: integer(i, "seq"))
        users = self._users(text(r, "user_id") for r in rows)
        return [
            Member(scope_id, users[text(r, "user_id")], Role(text(r, "role")))
            for r in rows
            if text(r, "user_id") in users
        ]

    def _set_member(self, pk: str, user_id: str, role: Role) -> None:
        """A new member joins last; a member's role change keeps their place."""
        self._ops.client.update_item(
            TableName=self._ops.table,
            Key=member_key(pk, user_id),
            UpdateExpression="SET #r = :r, #u = :u, #s = if_not_exists(#s, :s)",
            ExpressionAttributeNames={"#r": "role", "#u": "user_id", "#s": "seq"},
            ExpressionAttributeValues=placeholders(r=role, u=user_id, s=self._seq.next()),
        )

    def _remove_member(self, pk: str, user_id: str) -> bool:
        return self._ops.delete(member_key(pk, user_id))

    # ---- project keys ----

    def add_key(self, key_: ProjectKey) -> None:
        """The key, its hash claim and its place in the project, in one transaction: a hash is never stored twice."""
        pointer = {**key_of_project_key(key_.project_id, key_.id), **attributes(key_id=key_.id, key_hash=key_.key_hash)}
        claim = {**hash_key(key_.key_hash), **attributes(key_id=key_.id)}
        try:
            self._ops.transact(
                [self._ops.put_new(project_key_item(key_)), self._ops.put_new(claim), self._ops.put(pointer)]
            )
        except TransactionCancelledError:
            raise ConflictError("A project key with this id or hash already exists.") from None

    def auth_epoch(self) -> None:
        """No such counter here: every call reads the key (a Lambda's cache could not see a revocation)."""
        return None

    def key_by_hash(self, key_hash: str) -> ProjectKey | None:
        claim = self._ops.get(hash_key(key_hash))
        if claim is None:
            return None
        item = self._ops.get(key_item_key(text(claim, "key_id")))
        if item is None or "revoked_at" in item:
            return None
        return project_key_of(item)

    def keys_of_project(self, project_id: str) -> list[ProjectKey]:
        pointers = self._ops.partition(project_pk(project_id), KEY_OF_PROJECT)
        found = [project_key_of(i) for i in self._ops.batch_get([key_item_key(text(p, "key_id")) for p in pointers])]
        return sorted((k for k in found if k.project_id == project_id), key=lambda k: (k.created_at, k.id))

    def revoke_key(self, project_id: str, key_id: str, at: datetime) -> bool:
        revoked = self._ops.conditionally(
            "update_item",
            Key=key_item_key(key_id),
            UpdateExpression="SET #r = :at",
            ConditionExpression="attribute_exists(pk) AND #p = :p AND attribute_not_exists(#r)",
            ExpressionAttributeNames={"#r": "revoked_at", "#p": "project_id"},
            ExpressionAttributeValues=placeholders(at=at, p=project_id),
        )
        return revoked is not None

    def touch_key(self, key_id: str, at: datetime) -> None:
        self._ops.set_if_exists(key_item_key(key_id), attributes(last_used_at=at))
