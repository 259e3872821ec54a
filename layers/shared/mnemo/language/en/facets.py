"""What a memory is about, as a search index files it (its facets: the attributes it states), and the facets a
question asks about (their patterns are data: data/facets.toml)."""

from __future__ import annotations

from mnemo.language.claims import USER
from mnemo.language.en.claims import claims, normalized
from mnemo.language.en.patterns import pattern, tagged


def facets(text: str) -> list[str]:
    """The attributes a memory states, as the index files it: "residence", "employer", … for the user's own;
    "<person> residence" for a person of theirs ("my sister emma residence")."""
    return sorted(
        {
            c.attribute if c.subject == USER else f"{c.subject} {c.attribute}"
            for c in claims(text)
            if not c.attribute.startswith("alive ")  # what each name says: no facet of its own
        }
    )


# Each question pattern with the facets it asks about, and the favourite thing asked for (data/facets.toml).
_ASKED = tagged("facets.toml", "facets")
_ASKED_FAVORITE = pattern("facets.toml", "favorite")


def asked_facets(question: str) -> list[str]:
    """The attributes a question asks about ("Where does she work now?" -> employer), for the user's own facts."""
    asked = [facet for asks, named in _ASKED if asks.search(question) for facet in named]
    asked += [f"favorite {normalized(m.group('thing'))}" for m in _ASKED_FAVORITE.finditer(question)]
    return list(dict.fromkeys(asked))
