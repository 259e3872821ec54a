"""Zero-shot categories for memories: embedding similarity between a memory and each category's phrasings.

Every category is embedded in several phrasings: its name (underscores as spaces), its description, the two
together and, for the 15 default categories (Mem0's), a handful of prototype memories (`DEFAULT_PROTOTYPES`,
written for this and not taken from the benchmark's memories). A memory's score for a category is the mean cosine
similarity of the category's 2 closest phrasings (`PHRASINGS_AVERAGED`; the single best one is a noisier match).
The phrasings' vectors are embedded once per category set and cached (keyed by the tuple of categories).

The decision (`Rule`): the best-scoring category when its score reaches `threshold` = 0.225; a further category
only when it also reaches the threshold and is within `margin` of the best, up to `max_categories`; by default
`margin` = 0 and `max_categories` = 1, i.e. one category at most. When no category reaches the threshold the
memory gets none, or `misc` with `fallback=True` when the set has `misc`. The rule is generic: a custom category
set (any names and descriptions) goes through the same scoring, without prototypes.

Measured with all-MiniLM-L6-v2 on bench/data/categories.jsonl (240 labelled memories, 1-2 labels each, 16 per
category; parameters chosen on the 165 `tune` memories, reported on the 75 held-out `test` ones;
`python -m bench.categories`, bench/results/categories.json):

- default rule: tune micro P 0.868 / R 0.719 (macro 0.872 / 0.734); test micro P 0.817 / R 0.699 (macro 0.848 /
  0.702); 95% of memories get a category. Worst on test: precision personal_details 0.40 (it attracts
  place and family facts: "My sister lives in Porto"), professional_details and fashion 0.67; recall misc 0.20,
  personal_details 0.33, professional_details 0.40.
- the threshold trades recall for precision (test, one category): 0.10 -> P 0.787 / R 0.711, 0.25 -> 0.824 /
  0.675, 0.30 -> 0.841 / 0.639, 0.35 -> 0.915 / 0.518.
- a second category within a margin costs more precision than it gains recall (tune, threshold 0.225: margin 0.02
  gives P 0.798 / R 0.740, margin 0.05 gives 0.754 / 0.766), hence one category at most.
- the `misc` fallback hurts precision (test P 0.817 -> 0.787 for R 0.699 -> 0.711; tune 0.868 -> 0.836): most
  memories that reach no category are not miscellaneous, just hard. Off by default; callers that must file every
  memory somewhere can turn it on.
- without prototypes (names and descriptions only, as a custom set is phrased), scores run lower: at 0.225 test
  micro P 0.927 but R 0.458 (55% of memories categorized); the best top-1 accuracy is about 0.70.
- the keyword categorizer (`mnemo.services.categories.categorize`) on the same set: test micro P 0.647 / R 0.265.
- time: 1.2-1.3 ms per memory in a batch of 100 (category vectors cached; 2.4 ms on the first call, which embeds
  them), on the NumPy/ONNX local embedder of this machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mnemo.ports.embedder import Embedder
from mnemo.services.commands import Category

Scores = npt.NDArray[np.float32]

MISC = "misc"
# A category's score: the mean similarity of its closest phrasings (one phrasing is a noisy match on its own).
PHRASINGS_AVERAGED = 2
# Category sets whose vectors are kept (a service sees the default set and each project's custom one).
MAX_CACHED_SETS = 64

# The reference service's (Mem0's) 15 default categories; the descriptions list typical content, which is what an
# embedding of a short memory comes close to.
DEFAULT_CATEGORIES: tuple[Category, ...] = (
    (
        "personal_details",
        "Personal details about the user: name, nickname, age, birthday, where they live, hometown, nationality, "
        "languages spoken, pronouns, contact details, personality traits.",
    ),
    (
        "family",
        "Family members and relatives: parents, mother, father, siblings, sister, brother, spouse, husband, wife, "
        "children, son, daughter, grandparents, cousins, in-laws.",
    ),
    (
        "professional_details",
        "Work and career: job title, employer, company, colleagues, boss, clients, meetings, projects, salary, "
        "skills, certifications, job search, business.",
    ),
    (
        "sports",
        "Sports and fitness: playing or watching sports, teams supported, running, cycling, swimming, football, "
        "tennis, gym workouts, training, races and matches.",
    ),
    (
        "travel",
        "Travel and trips: countries and cities visited, vacations, holidays, flights, hotels, road trips, travel "
        "plans, passports, destinations abroad.",
    ),
    (
        "food",
        "Food and drink: diet, favourite dishes, cuisines, restaurants, cooking, baking, coffee, wine, food "
        "allergies and intolerances, vegetarian or vegan eating.",
    ),
    (
        "music",
        "Music: favourite bands, singers, genres and songs, concerts, festivals, playing an instrument, singing, "
        "listening to music, playlists.",
    ),
    (
        "health",
        "Health and medical: illnesses, conditions, allergies, medication, doctors, surgery, injuries, therapy, "
        "mental health, sleep, weight, fitness goals.",
    ),
    (
        "technology",
        "Technology and gadgets: computers, laptops, phones, software, apps, programming languages, tools, "
        "operating systems, devices, the internet and AI.",
    ),
    (
        "hobbies",
        "Hobbies and leisure interests: gardening, crafts, knitting, painting, photography, collecting, board "
        "games, chess, woodworking, DIY projects, birdwatching.",
    ),
    (
        "fashion",
        "Fashion and clothing: clothes, style, outfits, shoes, sizes, brands, accessories, jewellery, watches, "
        "bags, shopping for clothes.",
    ),
    (
        "entertainment",
        "Entertainment and media: movies, films, TV shows, series, books, novels, authors, video games, podcasts, "
        "theatre, comedy, streaming.",
    ),
    (
        "milestones",
        "Important life events and milestones: graduation, wedding, engagement, birth of a child, buying a "
        "house, moving home, promotion, retirement, anniversaries, achievements.",
    ),
    (
        "user_preferences",
        "The user's preferences, likes and dislikes: how they like things done, preferred formats, communication "
        "style, settings, options they prefer or avoid.",
    ),
    (
        "misc",
        "Miscellaneous facts that fit no other category: pets, car, errands, household chores, finances, "
        "appointments, religion, politics, volunteering.",
    ),
)

# A few typical memories per default category, embedded with the name and description (a category's score is its
# best phrasing). Written for the classifier, not copied from the benchmark's labelled memories.
DEFAULT_PROTOTYPES: dict[str, tuple[str, ...]] = {
    "personal_details": (
        "My name is Anna Schmidt",
        "Is 28 years old",
        "Lives in Madrid",
        "Was born in Brazil and grew up in Chicago",
        "Speaks German and Spanish",
        "Birthday is on 3 October",
        "Her phone number ends in 4471",
        "Is a shy and curious person",
        "Identifies as non-binary",
        "Has Italian citizenship",
    ),
    "family": (
        "Has a younger sister called Laura",
        "Her father is a retired teacher",
        "Married to Paul with three children",
        "His son plays in the school band",
        "Grandmother lives with them",
        "Is close to her uncle and aunt",
        "Spends the holidays with his parents",
        "Their kids are 5 and 9",
        "Mother-in-law comes over on weekends",
    ),
    "professional_details": (
        "Works as an accountant at Deloitte",
        "Is a senior backend developer",
        "Job interview on Monday",
        "Manages the marketing department",
        "Works night shifts at the factory",
        "Is a lawyer at a law firm",
        "Has a deadline for the client report on Friday",
        "Wants a promotion and a higher salary",
        "Owns a consulting business",
        "Colleague Mark is on the same project",
    ),
    "sports": (
        "Plays basketball on Wednesdays",
        "Runs 5 km every morning",
        "Is a Liverpool supporter",
        "Does yoga and weight lifting at the gym",
        "Competed in a cycling race",
        "Watches the NBA finals",
        "Goes hiking and rock climbing",
        "Plays volleyball on the beach",
        "Practises judo",
    ),
    "travel": (
        "Visited Italy last summer",
        "Is planning a holiday in Greece",
        "Flies to London often for work",
        "Wants to travel around South America",
        "Booked a hotel in Rome",
        "Went on a cruise in the Caribbean",
        "Needs a visa for the trip to India",
        "Loves visiting new countries",
        "Goes on a weekend getaway to the mountains",
    ),
    "food": (
        "Loves Italian pasta",
        "Does not eat meat",
        "Favourite food is sushi",
        "Likes cooking on weekends",
        "Drinks two cups of coffee every morning",
        "Dislikes mushrooms and olives",
        "Has a favourite pizza place nearby",
        "Eats gluten-free",
        "Enjoys craft beer",
    ),
    "music": (
        "Likes listening to rock music",
        "Plays the violin",
        "Favourite artist is Beyoncé",
        "Went to a jazz concert",
        "Listens to albums on Spotify",
        "Plays bass in a band",
        "Loves opera",
        "Favourite song is Bohemian Rhapsody",
    ),
    "health": (
        "Has high cholesterol",
        "Takes antidepressants",
        "Is recovering from a back injury",
        "Has a doctor's appointment next week",
        "Is allergic to pollen",
        "Has trouble sleeping",
        "Is on a diet to lose weight",
        "Had an operation on his shoulder",
        "Struggles with depression",
        "Has a chronic illness",
    ),
    "technology": (
        "Uses an iPhone 15",
        "Programs in JavaScript",
        "Bought a new laptop",
        "Uses Windows 11 at home",
        "Interested in artificial intelligence",
        "Builds websites with React",
        "Has a smartwatch and wireless earbuds",
        "Uses ChatGPT every day",
        "Set up a Raspberry Pi",
        "Upgraded the computer's RAM",
    ),
    "hobbies": (
        "Enjoys painting in free time",
        "Collects coins",
        "Likes doing jigsaw puzzles",
        "Spends weekends gardening",
        "Does amateur astronomy",
        "Sews her own clothes as a hobby",
        "Builds model airplanes",
        "Plays board games with friends",
        "Is learning to juggle",
        "Does scrapbooking",
    ),
    "fashion": (
        "Likes wearing dresses",
        "Wears size 10 shoes",
        "Favourite brand is Zara",
        "Prefers casual clothes",
        "Bought new sneakers",
        "Wears a gold necklace",
        "Likes colourful outfits",
        "Needs new jeans",
    ),
    "entertainment": (
        "Favourite TV show is Friends",
        "Loves reading fantasy books",
        "Watches a lot of movies",
        "Plays video games on PlayStation",
        "Enjoys musicals and theatre",
        "Favourite film director is Christopher Nolan",
        "Listens to a history podcast",
        "Is rewatching Game of Thrones",
        "Reads detective novels",
    ),
    "milestones": (
        "Graduated from university in 2020",
        "Got married last year",
        "Their first baby was born in May",
        "Bought their first home",
        "Celebrated a 40th birthday",
        "Got a new job after years of searching",
        "Retired in 2019",
        "Finished her PhD",
        "Passed the driving test",
        "Got divorced in 2018",
    ),
    "user_preferences": (
        "Prefers detailed explanations",
        "Likes to receive updates by email",
        "Prefers using the metric system",
        "Dislikes long meetings",
        "Prefers to be called by first name",
        "Likes answers in a formal tone",
        "Prefers texting over phone calls",
        "Wants recommendations to be short",
        "Prefers the light theme",
    ),
    "misc": (
        "Has a pet rabbit",
        "Needs to buy groceries tomorrow",
        "Drives a Honda Civic",
        "Is saving up money",
        "Goes to church on Sundays",
        "Has to renew the gym membership card",
        "Supports a political party",
        "Electricity bill is due next week",
        "Volunteers at an animal shelter",
    ),
}


@dataclass(frozen=True)
class Rule:
    """Which of a memory's category scores (cosine similarities) it is filed under: the best category when its
    score reaches `threshold`; others too when they reach `threshold` and are within `margin` of the best, up to
    `max_categories` in all. When none reaches the threshold: `misc` if `fallback` and the set has it, else none."""

    threshold: float = 0.225
    margin: float = 0.0
    max_categories: int = 1
    fallback: bool = False


class EmbeddingCategorizer:
    """Assigns categories to memories by embedding similarity against each category's phrasings (its name, its
    description, its name and description together, and, for a default category, its prototypes)."""

    def __init__(self, embedder: Embedder, rule: Rule | None = None, *, prototypes: bool = True) -> None:
        self._embedder = embedder
        self.rule = rule or Rule()
        self._prototypes = prototypes
        # Per category set: the phrasings' vectors and, for each phrasing, the index of its category.
        self._cache: dict[tuple[Category, ...], tuple[Scores, npt.NDArray[np.intp], Scores]] = {}

    def categorize(self, texts: Sequence[str], categories: Sequence[Category]) -> list[tuple[str, ...]]:
        """Each text's category names, in order of similarity (best first)."""
        if not texts:
            return []
        if not categories:
            return [() for _ in texts]
        return self.decide(self.similarities(texts, categories), categories)

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def categorize_vectors(self, vectors: Scores, categories: Sequence[Category]) -> list[tuple[str, ...]]:
        """`categorize` for texts already embedded (by this categorizer's embedder: unit vectors, one per row)."""
        if not len(vectors):
            return []
        if not categories:
            return [() for _ in vectors]
        return self.decide(self.scores(vectors, categories), categories)

    def similarities(self, texts: Sequence[str], categories: Sequence[Category]) -> Scores:
        """One row per text, one column per category: the mean cosine similarity to the category's closest
        `PHRASINGS_AVERAGED` phrasings."""
        return self.scores(self._embedder.embed(list(texts)), categories)

    def scores(self, vectors: Scores, categories: Sequence[Category]) -> Scores:
        """`similarities` of texts already embedded."""
        phrasings, columns, counts = self._category_vectors(tuple(categories))
        per_phrasing = vectors @ phrasings.T
        # Every category's phrasings side by side (a category with fewer than the most has -inf in the rest), so
        # that one sort ranks each category's own: a loop over the categories cost ~0.2 ms an add.
        padded = np.concatenate([per_phrasing, np.full((len(per_phrasing), 1), -np.inf, np.float32)], axis=1)
        best = np.sort(padded[:, columns], axis=2)[:, :, ::-1][:, :, :PHRASINGS_AVERAGED]
        out: Scores = np.where(np.isfinite(best), best, np.float32(0)).sum(axis=2) / counts
        return out

    def decide(self, scores: Scores, categories: Sequence[Category], rule: Rule | None = None) -> list[tuple[str, ...]]:
        """The rule applied to each row of `scores` (as `similarities` gives them)."""
        rule = rule or self.rule
        names = [name for name, _ in categories]
        fallback = (MISC,) if rule.fallback and MISC in names else ()
        out: list[tuple[str, ...]] = []
        for row in scores:
            order = np.argsort(-row, kind="stable")[: rule.max_categories]
            best = float(row[order[0]])
            chosen = tuple(
                names[i] for i in order if float(row[i]) >= rule.threshold and float(row[i]) >= best - rule.margin
            )
            out.append(chosen or fallback)
        return out

    def _category_vectors(self, key: tuple[Category, ...]) -> tuple[Scores, npt.NDArray[np.intp], Scores]:
        """The phrasings' vectors; for each category the columns of its phrasings (padded with the column past the
        last, which `scores` fills with -inf); and how many of them each category's score averages."""
        cached = self._cache.get(key)
        if cached is None:
            texts: list[str] = []
            owned: list[list[int]] = []
            for category in key:
                phrased = self._phrasings(category)
                owned.append(list(range(len(texts), len(texts) + len(phrased))))
                texts.extend(phrased)
            width = max((len(cols) for cols in owned), default=1)
            columns = np.full((len(owned), width), len(texts), dtype=np.intp)
            for index, cols in enumerate(owned):
                columns[index, : len(cols)] = cols
            counts = np.asarray([min(len(cols), PHRASINGS_AVERAGED) for cols in owned], dtype=np.float32)
            cached = (self._embedder.embed(texts), columns, counts)
            if len(self._cache) >= MAX_CACHED_SETS:
                del self._cache[next(iter(self._cache))]  # the oldest set
            self._cache[key] = cached
        return cached

    def _phrasings(self, category: Category) -> list[str]:
        name, description = category
        label = name.replace("_", " ").strip() or name
        phrasings = [label]
        if description.strip():
            phrasings += [description, f"{label}: {description}"]
        if self._prototypes and category in DEFAULT_CATEGORIES:
            phrasings += DEFAULT_PROTOTYPES.get(name, ())
        return list(dict.fromkeys(phrasings))
