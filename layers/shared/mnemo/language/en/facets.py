"""What a memory is about, as a search index files it (its facets: the attributes it states), and the facets a
question asks about."""

from __future__ import annotations

import re

from mnemo.language.claims import USER
from mnemo.language.en.claims import claims, normalized


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


_ASKED: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(
            r"\bwhere\b.*\b(?:live|lives|living|stay|stays|staying|based|reside|resides|home)\b|"
            r"\b(?:rent|own)\b.*\b(?:home|house|flat|apartment|place)\b|"
            r"\b(?:city|country|town|address)\b.*\b(?:live|lives|living|from|in)\b|\bmoved?\b",
            re.I,
        ),
        ("residence",),
    ),
    (
        re.compile(
            r"\bwhere\b.*\b(?:work|works|working|employed|job)\b|\b(?:company|employer|firm)\b|"
            r"\bwho\b.*\bwork(?:s|ing)? for\b",
            re.I,
        ),
        ("employer",),
    ),
    (
        re.compile(
            r"\bwhat\b.*\b(?:do|does)\b.*\bfor (?:work|a living)\b|\b(?:job|profession|occupation|career)\b|"
            r"\bwhat\b.*\bwork(?:s|ing)? as\b",
            re.I,
        ),
        ("occupation", "employer"),
    ),
    (re.compile(r"\b(?:diet|vegetarian|vegan|pescatarian|eat(?:s)? meat)\b", re.I), ("diet",)),
    (
        re.compile(r"\b(?:married|single|divorced|engaged|relationship|partner|dating|spouse)\b", re.I),
        ("relationship",),
    ),
    (re.compile(r"\bhow old\b|\bage\b", re.I), ("age",)),
    (re.compile(r"\blive with\b|\b(?:roommates?|flatmates?|housemates?|live alone)\b", re.I), ("household",)),
    (re.compile(r"\b(?:pets?|dogs?|cats?)\b", re.I), ("pets", "pet died")),
    (re.compile(r"\bwhat (?:do|does) \w+ eat\b", re.I), ("diet",)),
    (re.compile(r"^what (?:do|does) \w+ do\??$", re.I), ("occupation", "employer")),
    (re.compile(r"\bwork(?:s|ing)? (?:from home|remotely)\b|\bremote\b|\boffice\b", re.I), ("workplace",)),
    (re.compile(r"\bwho is\b.*\b(?:manager|boss)\b|\b(?:manager|boss)(?:'s|’s)? name\b", re.I), ("manager",)),
    (re.compile(r"\bstay(?:s|ing)? with\b", re.I), ("stays with",)),
    (re.compile(r"\b(?:kids?|children|child|baby|pregnant|son|daughter)\b", re.I), ("children", "expecting")),
    (re.compile(r"\b(?:shifts?|nights?|when do(?:es)? \w+ work)\b", re.I), ("shifts",)),
    (re.compile(r"\b(?:car|drive|drives)\b", re.I), ("car",)),
    (re.compile(r"\b(?:exercise|work(?:s)? out|workout|gym|sports?|swim|fitness)\b", re.I), ("exercise", "sport")),
    (re.compile(r"\bname\b", re.I), ("name",)),
)
_ASKED_FAVORITE = re.compile(r"\bfavou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?)", re.IGNORECASE)


def asked_facets(question: str) -> list[str]:
    """The attributes a question asks about ("Where does she work now?" -> employer), for the user's own facts."""
    asked = [facet for pattern, named in _ASKED if pattern.search(question) for facet in named]
    asked += [f"favorite {normalized(m.group('thing'))}" for m in _ASKED_FAVORITE.finditer(question)]
    return list(dict.fromkeys(asked))
