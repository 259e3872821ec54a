"""Erasure: is deleted text gone? For each way a surface deletes (one memory, by filter, by entity, all of a user's,
the whole store or project), a fresh deployment gets a conversation holding a sentinel — a therapist's surname made
of random letters, told in one message together with another fact, so that a sibling memory comes from the same
message — plus a few other memories; then the deletion, then a search for the sentinel in every place it may
survive:

- the API: the deleted memory's history, the memory itself, the text and the sources of every other memory still
  listed, and (platform) the add's event;
- the files: the raw bytes of every file under the data dir (the SQLite files and their -wal and -shm), while the
  service runs and again after it closed. The search is case-insensitive and also looks for the sentinel's last
  letters alone, since FTS5 stores a term after the prefix it shares with the term before it;
- which tables still hold it (read through SQL while the service runs; a diagnosis of the file hits, not counted).

An erasure hit is one place it survives (each file counted once).
"""

from __future__ import annotations

import random
import re
import sqlite3
import string
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.memory_quality.data import Conversation, Message
from bench.memory_quality.scoring import Stored
from bench.memory_quality.surfaces import GONE, Platform, Surface, SurfaceName, ok, open_surface
from mnemo.ports.embedder import Embedder

USER, OTHER_USER, RUN = "erin", "finn", "erasure-run"
TAIL = 10  # letters of the sentinel searched alone (an FTS5 term is stored after the prefix it shares)
PROJECT_ID = re.compile(r"proj_[0-9a-f]+")


def sentinel(rng: random.Random) -> str:
    """A surname no text has: random letters, ending in a letter no stemmer strips."""
    return "Zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(12)) + "q"


def conversations(name: str) -> list[tuple[Conversation, str | None]]:
    """The erasure scenario's adds: (conversation, run id)."""
    at = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

    def conv(cid: str, user: str, *turns: tuple[str, str]) -> Conversation:
        return Conversation(cid, user, at, tuple(Message(r, c) for r, c in turns), (), (), ())

    return [
        (conv("erin-work", USER, ("user", "I work as a librarian in Leeds and I cycle to work every day.")), None),
        (conv("finn-bees", OTHER_USER, ("user", "I'm Finn and I keep bees on my allotment in Bristol.")), None),
        (
            conv(
                "erin-therapy",
                USER,
                ("user", f"I see my therapist {name} every Thursday for my anxiety. I also started running again."),
                ("assistant", "Thank you for sharing that. Therapy and running are a great combination."),
                ("user", f"{name} actually suggested the running."),
            ),
            RUN,
        ),
    ]


@dataclass
class Scenario:
    """One erasure case on one surface, as it runs."""

    surface: Surface
    name: str
    data_dir: Path
    memory_ids: list[str] = field(default_factory=list)  # the memories holding the sentinel
    event_ids: list[str] = field(default_factory=list)  # the platform's add events

    def holds(self, text: str | None) -> bool:
        return bool(text) and self.name.lower() in (text or "").lower()


# ---- the deletions -------------------------------------------------------------------------------------------

Deletion = Callable[[Scenario], None]


def _delete_each(scenario: Scenario) -> None:
    s = scenario.surface
    for memory_id in scenario.memory_ids:
        path = f"/memories/{memory_id}" if s.name == "selfhosted" else f"/v1/memories/{memory_id}/"
        ok(s.client.delete(path, headers=s.headers))


def _delete_batch(scenario: Scenario) -> None:
    body = {"memories": [{"memory_id": m} for m in scenario.memory_ids]}
    ok(scenario.surface.client.request("DELETE", "/v1/batch/", json=body, headers=scenario.surface.headers))


def _delete_run(scenario: Scenario) -> None:
    s = scenario.surface
    if s.name == "selfhosted":
        ok(s.client.delete("/memories", params={"user_id": USER, "run_id": RUN}, headers=s.headers))
    else:
        params = {"filters": f'{{"user_id": "{USER}", "run_id": "{RUN}"}}'}
        ok(s.client.delete("/v1/memories/", params=params, headers=s.headers))


def _delete_user(scenario: Scenario) -> None:
    s = scenario.surface
    path = "/memories" if s.name == "selfhosted" else "/v1/memories/"
    ok(s.client.delete(path, params={"user_id": USER}, headers=s.headers))


def _delete_entity(scenario: Scenario) -> None:
    s = scenario.surface
    path = f"/entities/user/{USER}" if s.name == "selfhosted" else f"/v2/entities/user/{USER}/"
    ok(s.client.delete(path, headers=s.headers))


def _reset(scenario: Scenario) -> None:
    ok(scenario.surface.client.post("/reset", headers=scenario.surface.headers))


def _delete_project(scenario: Scenario) -> None:
    s = scenario.surface
    assert isinstance(s, Platform)
    ok(s.client.delete(f"/api/v1/orgs/organizations/{s.org_id}/projects/{s.project_id}/", headers=s.headers))


CASES: dict[SurfaceName, dict[str, tuple[str, Deletion]]] = {
    "selfhosted": {
        "memory": ("DELETE /memories/{id}, each memory holding it", _delete_each),
        "filter": ("DELETE /memories?user_id=…&run_id=… (its run)", _delete_run),
        "user": ("DELETE /memories?user_id=… (all of the user's)", _delete_user),
        "entity": ("DELETE /entities/user/{id}", _delete_entity),
        "reset": ("POST /reset (everything)", _reset),
    },
    "platform": {
        "memory": ("DELETE /v1/memories/{id}/, each memory holding it", _delete_each),
        "batch": ("DELETE /v1/batch/", _delete_batch),
        "filter": ("DELETE /v1/memories/?filters={user_id, run_id} (its run)", _delete_run),
        "user": ("DELETE /v1/memories/?user_id=… (all of the user's)", _delete_user),
        "entity": ("DELETE /v2/entities/user/{id}/", _delete_entity),
        "project": ("DELETE …/projects/{id}/ (the whole project)", _delete_project),
    },
}

# ---- where it survives ---------------------------------------------------------------------------------------


def files_holding(data_dir: Path, name: str) -> list[str]:
    """The files under the data dir whose bytes hold the sentinel (or its last letters), case-insensitively."""
    needles = (name.lower().encode(), name[-TAIL:].lower().encode())
    found = []
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        data = path.read_bytes().lower()
        if any(n in data for n in needles):
            found.append(shown(path, data_dir))
    return found


def shown(path: Path, data_dir: Path) -> str:
    """The path under the data dir, a project's id (random) written `proj_<id>`."""
    return PROJECT_ID.sub("proj_<id>", str(path.relative_to(data_dir)))


def tables_holding(data_dir: Path, name: str) -> list[str]:
    """`file: table` for every table (FTS5 shadow tables included) a row of which holds the sentinel."""
    found = []
    for path in sorted(data_dir.rglob("*.sqlite3")):
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                if _table_holds(db, table, name):
                    found.append(f"{shown(path, data_dir)}: {table}")
    return found


def _table_holds(db: sqlite3.Connection, table: str, name: str) -> bool:
    columns = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]
    tails = (name.lower(), name[-TAIL:].lower())
    for column in columns:
        query = (
            f'SELECT 1 FROM "{table}" WHERE lower(CAST("{column}" AS TEXT)) LIKE ? '
            f'OR instr(CAST("{column}" AS BLOB), ?) LIMIT 1'
        )
        try:
            if db.execute(query, (f"%{tails[0]}%", tails[1].encode())).fetchone():
                return True
        except sqlite3.Error:  # a virtual table that cannot be read this way
            continue
    return False


def api_places(scenario: Scenario) -> list[str]:
    """Where the API still shows the sentinel after the deletion."""
    s = scenario.surface
    places = []
    if any(any(_entry_holds(scenario, e) for e in s.history(m) or []) for m in scenario.memory_ids):
        places.append("api: the deleted memory's history")
    if any(scenario.holds(_get_text(s, m)) for m in scenario.memory_ids):
        places.append("api: the deleted memory itself")
    others = [m for user in (USER, OTHER_USER) for m in _listed(s, user)]
    if any(scenario.holds(m.text) for m in others):
        places.append("api: another memory's text")
    if any(scenario.holds(content) for m in others for _role, content in s.source_texts(m.id)):
        places.append("api: the sources of another memory")
    if any(scenario.holds(str(_event(s, e))) for e in scenario.event_ids):
        places.append("api: the add's event")
    return places


def _entry_holds(scenario: Scenario, entry: dict[str, Any]) -> bool:
    return scenario.holds(str(entry))


def _get_text(surface: Surface, memory_id: str) -> str | None:
    path = f"/memories/{memory_id}" if surface.name == "selfhosted" else f"/v1/memories/{memory_id}/"
    response = surface.client.get(path, headers=surface.headers)
    return None if response.status_code in GONE else str(ok(response))


def _listed(surface: Surface, user: str) -> list[Stored]:
    try:
        return list(surface.memories(user))
    except RuntimeError:  # the project is gone: its key answers 401
        return []


def _event(surface: Surface, event_id: str) -> dict[str, Any] | None:
    response = surface.client.get(f"/v1/event/{event_id}/", headers=surface.headers)
    return None if response.status_code in GONE else dict(ok(response))


# ---- one case ------------------------------------------------------------------------------------------------


def _prepare(scenario: Scenario) -> None:
    """Add the scenario's conversations and find the memories that hold the sentinel."""
    s = scenario.surface
    for conversation, run_id in conversations(scenario.name):
        s.add(conversation, run_id)
        if isinstance(s, Platform):
            scenario.event_ids.append(s.last_event_id)
    scenario.memory_ids = [m.id for m in s.memories(USER) if scenario.holds(m.text)]


def run_case(surface_name: SurfaceName, case: str, embedder: Embedder, rng: random.Random) -> dict[str, Any]:
    how, delete = CASES[surface_name][case]
    name = sentinel(rng)
    with tempfile.TemporaryDirectory(prefix=f"mnemo-erasure-{surface_name}-{case}-") as root:
        data_dir = Path(root) / "data"
        with open_surface(surface_name, data_dir, embedder) as surface:
            scenario = Scenario(surface, name, data_dir)
            _prepare(scenario)
            delete(scenario)
            api = api_places(scenario)
            serving = files_holding(data_dir, name)
            tables = tables_holding(data_dir, name)
        closed = files_holding(data_dir, name)
    places = [*api, *(f"file: {f}" for f in dict.fromkeys([*serving, *closed]))]
    return {
        "deletion": how,
        "memories_holding_it": len(scenario.memory_ids),
        "hits": len(places),
        "places": places,
        "files_while_serving": serving,
        "files_after_close": closed,
        "tables_while_serving": tables,
    }


def run(surface_name: SurfaceName, embedder: Embedder, seed: int = 16) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = {case: run_case(surface_name, case, embedder, rng) for case in CASES[surface_name]}
    return {"hits": sum(c["hits"] for c in cases.values()), "cases": cases}
