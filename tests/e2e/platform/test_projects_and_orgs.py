"""Organizations, projects and members through the real client's `project` operations and our routes: the
settings a project keeps, `?fields=`, the three outcomes of adding a member, and the irreversible delete."""

from __future__ import annotations

import httpx
import pytest
from mem0 import MemoryClient
from mem0.exceptions import AuthenticationError, MemoryNotFoundError

from mnemo.composition.platform import open_tenancy_store
from tests.e2e.platform.conftest import Server, Tenant, known_user, new_tenant, wait_for_event
from tests.support.waits import HTTP_TIMEOUT


def test_project_get_update_and_fields(server: Server, tenant: Tenant) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    project = client.project.get()
    assert project["project_id"] == tenant.project_id and project["org_id"] == tenant.org_id
    assert project["decay"] is False and project["multilingual"] is False and project["is_default"] is True
    assert project["members"] == [{"username": tenant.email, "email": tenant.email, "role": "OWNER"}]
    assert client.project.get(fields=["decay"]) == {"decay": False}

    updated = client.project.update(
        custom_instructions="Remember food preferences only.",
        custom_categories=[{"food": "what the user eats and drinks"}, {"travel": "trips and cities"}],
        multilingual=True,
        decay=True,
    )
    assert updated["message"] == "Project updated successfully" and updated["decay"] is True
    read = client.project.get()
    assert read["custom_instructions"] == "Remember food preferences only."
    assert read["custom_categories"] == [{"food": "what the user eats and drinks"}, {"travel": "trips and cities"}]
    assert (read["multilingual"], read["decay"]) == (True, True)
    assert client.project.get(fields=["decay", "multilingual"]) == {"decay": True, "multilingual": True}
    assert client.get_project(fields=["decay"]) == {"decay": True}  # the deprecated form
    client.update_project(custom_instructions="Remember travel only.", multilingual=False)  # deprecated too
    assert client.get_project(fields=["custom_instructions", "multilingual"]) == {
        "custom_instructions": "Remember travel only.",
        "multilingual": False,
    }
    client.project.update(decay=False)
    assert client.project.get(fields=["decay"]) == {"decay": False}
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    path = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    assert http.get(path, params={"fields": "nonsense"}).status_code == 400
    assert http.patch(path, json={"org_id": tenant.org_id, "project_id": tenant.project_id}).status_code == 400
    http.patch(path, json={"name": "Renamed", "description": "the main one"})
    assert http.get(path, params={"fields": ["name", "description"]}).json() == {
        "name": "Renamed",
        "description": "the main one",
    }


def test_the_clients_project_update_options_are_stored_and_answered(server: Server, tenant: Tenant) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    before = client.project.get()
    assert (before["agent_custom_instructions"], before["memory_depth"], before["enable_graph"]) == (None, None, False)
    client.update_project(  # the deprecated form sends memory_depth and usecase_setting
        agent_custom_instructions="Keep the tools the agent learned.",
        memory_depth="deep",
        usecase_setting="A travel concierge",
    )
    read = client.project.get()
    assert read["agent_custom_instructions"] == "Keep the tools the agent learned."
    assert (read["memory_depth"], read["usecase_setting"]) == ("deep", "A travel concierge")
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    path = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    assert http.patch(path, json={"version": "v2", "enable_graph": False}).status_code == 200
    assert http.get(path, params={"fields": ["version", "enable_graph"]}).json() == {
        "version": "v2",
        "enable_graph": False,
    }
    graph = http.patch(path, json={"enable_graph": True})
    assert graph.status_code == 400 and "no graph store" in graph.json()["detail"]
    unknown = http.patch(path, json={"decay": True, "summary_batch_size": 5})
    assert unknown.status_code == 400 and "summary_batch_size" in unknown.json()["detail"]
    assert client.project.get(fields=["decay"]) == {"decay": False}  # nothing of a refused patch is kept
    client.project.update(agent_custom_instructions="")  # "" clears, as the reference's does
    assert client.project.get(fields=["agent_custom_instructions"]) == {"agent_custom_instructions": None}


def test_project_settings_reach_the_add(server: Server, tenant: Tenant) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    client.project.update(
        custom_categories=[{"food": "meals, cooking and drinks"}, {"travel": "trips, flights, cities"}]
    )
    queued = client.add("I had sushi for dinner with my cooking club.", user_id="alice")
    event = wait_for_event(server, tenant, queued["event_id"])
    assert event["payload"]["custom_categories"] == [
        {"food": "meals, cooking and drinks"},
        {"travel": "trips, flights, cities"},
    ]
    (memory,) = client.get_all(filters={"user_id": "alice"})["results"]
    assert memory["categories"] == ["food"]
    # the call's own list replaces the project's
    own = client.add("We booked flights to Rome.", user_id="bob", custom_categories=[{"plans": "things booked ahead"}])
    assert wait_for_event(server, tenant, own["event_id"])["payload"]["custom_categories"] == [
        {"plans": "things booked ahead"}
    ]
    (booked,) = client.get_all(filters={"user_id": "bob"})["results"]
    assert booked["categories"] == ["plans"]
    assert client.search("dinner", filters={"user_id": "alice", "categories": {"in": ["food"]}})["results"]


def test_project_members_and_the_three_outcomes_of_adding_one(server: Server, tenant: Tenant) -> None:
    client = MemoryClient(api_key=tenant.key, host=server.url)
    known_user(server, "ana@example.com")
    assert client.project.add_member("Ana@Example.com", "READER") == {
        "message": "User added to the project successfully."
    }
    members = client.project.get_members()["members"]
    assert {(m["username"], m["role"]) for m in members} == {(tenant.email, "OWNER"), ("ana@example.com", "READER")}
    assert client.project.update_member("ana@example.com", "OWNER") == {"message": "User role updated successfully."}
    assert {m["role"] for m in client.project.get_members()["members"]} == {"OWNER"}
    assert client.project.remove_member("ana@example.com") == {"message": "Member removed from the project"}
    assert [m["username"] for m in client.project.get_members()["members"]] == [tenant.email]
    with pytest.raises(MemoryNotFoundError):
        client.project.remove_member("ana@example.com")

    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    missing = http.post(
        f"/api/v1/orgs/organizations/{tenant.org_id}/projects/proj_nonexistent/members/",
        json={"email": "x@example.com", "role": "READER"},
    )
    assert (missing.status_code, missing.json()["message"]) == (404, "Organization or project not found.")
    bad_role = http.post(
        f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/members/",
        json={"email": "x@example.com", "role": "ADMIN"},
    )
    assert bad_role.status_code == 400


def test_an_unknown_email_added_as_a_member_is_invited_and_becomes_a_member_once_it_accepts(
    server: Server, tenant: Tenant
) -> None:
    """The client's answer is the same; the address is not a member (not listed, no key for it) until the
    invitation is accepted in the console, then it is one with the role it was added with."""
    client = MemoryClient(api_key=tenant.key, host=server.url)
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    keys = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/api-keys/"
    email = f"newcomer-{tenant.project_id}@example.com"

    assert client.project.add_member(email, "OWNER") == {"message": "User added to the project successfully."}
    assert [m["username"] for m in client.project.get_members()["members"]] == [tenant.email]
    assert http.post(keys, json={"email": email}).status_code == 400
    console = server.platform.console_auth
    owner = server.platform.tenancy.authenticate(tenant.key).user
    (pending,) = console.invitations(owner, tenant.org_id, tenant.project_id)
    assert (pending.email, pending.role.value) == (email, "OWNER")

    link = console.invite(owner, tenant.org_id, tenant.project_id, email, pending.role)  # the link, shown to the owner
    assert link.token is not None
    console.accept(link.token, "a long enough password", "127.0.0.1")

    assert {(m["username"], m["role"]) for m in client.project.get_members()["members"]} == {
        (tenant.email, "OWNER"),
        (email, "OWNER"),
    }
    assert http.post(keys, json={"email": email}).status_code == 201


def test_projects_and_orgs_are_created_listed_and_deleted_with_their_data(server: Server) -> None:
    tenant = new_tenant(server)
    client = MemoryClient(api_key=tenant.key, host=server.url)
    http = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    created = client.project.create("Second", description="for experiments")
    assert created["message"] == "Project created successfully." and created["project_id"].startswith("proj_")
    second = created["project_id"]
    org_path = f"/api/v1/orgs/organizations/{tenant.org_id}/"
    listed = http.get(org_path + "projects/").json()
    assert [p["name"] for p in listed] == ["Default Project", "Second"]

    # a key for the second project, its memory, then the project's deletion takes all of it
    key = http.post(org_path + f"projects/{second}/api-keys/", json={"label": "exp"}).json()["api_key"]
    other = MemoryClient(api_key=key, host=server.url)
    assert other.project_id == second
    memory = other.add("I test things here", user_id="u", infer=False)["results"][0]["id"]
    assert second in server.platform.namespaces.stored_namespaces()
    assert other.project.delete() == {"message": "Project and related data deleted successfully."}
    assert second not in server.platform.namespaces.stored_namespaces()
    assert (
        httpx.get(f"{server.url}/v1/ping/", headers={"Authorization": f"Token {key}"}, timeout=HTTP_TIMEOUT).status_code
        == 401
    )
    assert http.get(org_path + f"projects/{second}/").status_code == 404
    with open_tenancy_store(server.container.settings) as store:
        assert store.events_of_project(second, 10, 0) == []
    assert client.project.get()["project_id"] == tenant.project_id  # the default project is untouched
    with pytest.raises(MemoryNotFoundError):
        client.get(memory)  # and never held that memory

    # organizations: create, list, members, delete
    made = http.post("/api/v1/orgs/organizations/", json={"name": "Side Org"})
    assert made.status_code == 201
    new_org = made.json()["org_id"]
    orgs = http.get("/api/v1/orgs/organizations/").json()
    assert {o["org_id"] for o in orgs} == {tenant.org_id, new_org} and all(o["is_owner"] for o in orgs)
    members_path = f"/api/v1/orgs/organizations/{new_org}/members/"
    known_user(server, "bea@example.com")
    assert http.post(members_path, json={"email": "bea@example.com", "role": "READER"}).status_code == 200
    assert http.put(members_path, json={"email": "bea@example.com", "role": "OWNER"}).status_code == 200
    assert {(m["email"], m["role"]) for m in http.get(members_path).json()["members"]} == {
        (tenant.email, "OWNER"),
        ("bea@example.com", "OWNER"),
    }
    assert http.request("DELETE", members_path, json={"email": "bea@example.com"}).status_code == 200
    assert http.request("DELETE", members_path, json={"email": tenant.email}).status_code == 400  # the last owner
    side_project = http.post(f"/api/v1/orgs/organizations/{new_org}/projects/", json={"name": "P"}).json()["project_id"]
    assert http.delete(f"/api/v1/orgs/organizations/{new_org}/").status_code == 200
    assert http.get(f"/api/v1/orgs/organizations/{new_org}/").status_code == 404
    with open_tenancy_store(server.container.settings) as store:
        assert store.get_project(side_project) is None


def test_a_project_reader_cannot_create_projects_in_the_org(server: Server, tenant: Tenant) -> None:
    owner = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    path = f"/api/v1/orgs/organizations/{tenant.org_id}/projects/{tenant.project_id}/"
    owner.post(path + "members/", json={"email": known_user(server, "rita@example.com"), "role": "READER"})
    key = owner.post(path + "api-keys/", json={"email": "rita@example.com"}).json()["api_key"]
    reader = MemoryClient(api_key=key, host=server.url)
    with pytest.raises(MemoryNotFoundError):  # not a member of the organization: it is not hers to see
        reader.project.create("Mine")
    with pytest.raises(AuthenticationError):
        reader.project.delete()
    assert owner.get(path).status_code == 200


def test_organization_roles_carry_over_to_its_projects(server: Server, tenant: Tenant) -> None:
    owner = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    org_path = f"/api/v1/orgs/organizations/{tenant.org_id}/"
    project_path = org_path + f"projects/{tenant.project_id}/"
    assert owner.post(project_path + "api-keys/", json={"email": "outsider@example.com"}).status_code == 400
    owner.post(org_path + "members/", json={"email": known_user(server, "olga@example.com"), "role": "READER"})
    key = owner.post(project_path + "api-keys/", json={"email": "olga@example.com"}).json()["api_key"]
    olga = MemoryClient(api_key=key, host=server.url)
    assert olga.project.get(fields=["user_role"]) == {"user_role": "READER"}
    with pytest.raises(AuthenticationError):
        olga.add("I like figs", user_id="u", infer=False)
    owner.put(org_path + "members/", json={"email": "olga@example.com", "role": "OWNER"})
    assert olga.project.get(fields=["user_role"]) == {"user_role": "OWNER"}
    assert olga.add("I like figs", user_id="u", infer=False)["status"] == "SUCCEEDED"
    owner.request("DELETE", org_path + "members/", json={"email": "olga@example.com"})
    assert (
        httpx.get(f"{server.url}/v1/ping/", headers={"Authorization": f"Token {key}"}, timeout=HTTP_TIMEOUT).status_code
        == 401
    )


def test_a_caller_who_may_not_change_members_or_settings_learns_that_before_anything_about_the_body(
    server: Server, tenant: Tenant
) -> None:
    """An organization READER, and a stranger, sending a body that is also malformed: the role check (403) or
    the not-found (404) answers first, as it always did; only the interface's project-member add checks its body
    first (its three outcomes)."""
    owner = httpx.Client(base_url=server.url, headers=tenant.headers, timeout=HTTP_TIMEOUT)
    org_path = f"/api/v1/orgs/organizations/{tenant.org_id}/"
    project_path = org_path + f"projects/{tenant.project_id}/"
    owner.post(org_path + "members/", json={"email": known_user(server, "rhea@example.com"), "role": "READER"})
    key = owner.post(project_path + "api-keys/", json={"email": "rhea@example.com"}).json()["api_key"]
    reader = httpx.Client(base_url=server.url, headers={"Authorization": f"Token {key}"}, timeout=HTTP_TIMEOUT)
    stranger = httpx.Client(base_url=server.url, headers=new_tenant(server, "stranger").headers, timeout=HTTP_TIMEOUT)
    for caller, status in ((reader, 403), (stranger, 404)):
        assert caller.post(org_path + "members/", json={}).status_code == status
        assert caller.put(org_path + "members/", json={"role": "OWNER"}).status_code == status
        assert caller.request("DELETE", org_path + "members/", json={}).status_code == status
        assert caller.put(project_path + "members/", json={}).status_code == status
        assert caller.patch(project_path, json={"custom_categories": [5]}).status_code == status
        assert caller.post(project_path + "members/", json={}).status_code == 400  # email is required.
    assert owner.post(org_path + "members/", json={"email": "x@example.com"}).json()["detail"] == (
        "role is required (READER or OWNER)."
    )
