"""A deterministic synthetic corpus of short first-person memories and questions about them.

Texts look like what agents store ("I adopted a grey cat named Pixel in March"), ~12-25 tokens each, drawn
from templates and word lists with a seeded generator, so every run and every system sees the same data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

NAMES = [
    "Ana",
    "Ben",
    "Chloe",
    "Dev",
    "Elif",
    "Farah",
    "Goran",
    "Hana",
    "Ivan",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
]
PLACES = [
    "Lisbon",
    "Porto",
    "Kyoto",
    "Nairobi",
    "Oslo",
    "Lima",
    "Hanoi",
    "Tucson",
    "Ghent",
    "Perth",
    "Quito",
    "Bergen",
    "Dakar",
    "Tbilisi",
    "Cusco",
    "Leeds",
    "Malmo",
    "Austin",
    "Sapporo",
    "Valencia",
]
THINGS = [
    "a grey cat",
    "a vintage bicycle",
    "a sourdough starter",
    "an old piano",
    "a bonsai tree",
    "a kayak",
    "a telescope",
    "a rescue dog",
    "a film camera",
    "a vegetable garden",
    "a chess set",
    "a sewing machine",
    "a drum kit",
    "a tarot deck",
    "a beehive",
    "an electric guitar",
    "a pottery wheel",
    "a fish tank",
]
FOODS = [
    "spicy ramen",
    "vegetable pizza",
    "mango sticky rice",
    "lentil soup",
    "sushi",
    "tacos al pastor",
    "dark chocolate",
    "goat cheese",
    "pho",
    "falafel",
    "blueberry pancakes",
    "kimchi stew",
    "paella",
]
ACTIVITIES = [
    "rock climbing",
    "salsa dancing",
    "trail running",
    "birdwatching",
    "oil painting",
    "sailing",
    "woodworking",
    "learning Japanese",
    "playing the cello",
    "volunteering at a shelter",
    "surfing",
    "baking bread",
    "writing poetry",
    "cycling to work",
    "swimming laps",
    "knitting scarves",
]
JOBS = [
    "a nurse",
    "a software engineer",
    "a high school teacher",
    "a chef",
    "an architect",
    "a pharmacist",
    "a carpenter",
    "a journalist",
    "a data analyst",
    "a veterinarian",
    "a pilot",
    "a librarian",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
RELATIVES = ["sister", "brother", "mother", "father", "cousin", "best friend", "grandmother", "uncle", "aunt"]

TEMPLATES = [
    ("I adopted {thing} named {name} in {month}.", "Did I get {thing} this year?"),
    ("My {relative} {name} lives in {place} and works as {job}.", "Where does my {relative} live?"),
    ("I have been {activity} every weekend since {month}.", "What do I do on weekends?"),
    ("My favourite food is {food}, especially the one from a stall in {place}.", "What food do I like most?"),
    ("I am allergic to {food} so I never order it.", "Do I have any food allergies?"),
    ("Last {month} I travelled to {place} with my {relative} {name}.", "Who did I travel with to {place}?"),
    ("I work as {job} at a small clinic near {place}.", "What is my job?"),
    ("I started {activity} after my trip to {place} in {month}.", "When did I start {activity}?"),
    ("My {relative} gave me {thing} for my birthday in {month}.", "What present did I get for my birthday?"),
    ("I want to move to {place} next year because I love the weather there.", "Where am I planning to move?"),
    ("{name} from my book club recommended {food} in {place}.", "Who recommended a restaurant to me?"),
    ("I sold {thing} because I had no space for it in my flat in {place}.", "Why did I get rid of {thing}?"),
]


@dataclass(frozen=True, slots=True)
class Item:
    user_id: str
    text: str
    question: str


def generate(count: int, users: int, seed: int = 7) -> list[Item]:
    """`count` memories spread round-robin over `users` users, each with a matching question."""
    rng = random.Random(seed)
    items: list[Item] = []
    seen: set[str] = set()
    for i in range(count):
        template, question = TEMPLATES[rng.randrange(len(TEMPLATES))]
        words = {
            "name": rng.choice(NAMES),
            "place": rng.choice(PLACES),
            "thing": rng.choice(THINGS),
            "food": rng.choice(FOODS),
            "activity": rng.choice(ACTIVITIES),
            "job": rng.choice(JOBS),
            "month": rng.choice(MONTHS),
            "relative": rng.choice(RELATIVES),
        }
        text = template.format(**words)
        if text in seen:  # keep every memory distinct: exact duplicates are (rightly) not stored twice
            text = f"{text[:-1]}, as I wrote in note {i}."
        seen.add(text)
        items.append(Item(f"user-{i % users:03d}", text, question.format(**words)))
    return items


HTTP_PRELOAD = 5_000  # the HTTP benchmarks preload this many memories and ask their questions …
HTTP_USERS = 100
HTTP_SEED = 5


@dataclass(frozen=True, slots=True)
class HttpTexts:
    preloaded: list[Item]  # … stored before the run: the searches ask their questions
    fresh: list[Item]  # the adds' texts, past the preloaded ones


def http_texts(fresh: int = 200_000, preload: int = HTTP_PRELOAD) -> HttpTexts:
    """The texts every HTTP benchmark (bench.http_load, bench.http_floor, bench.model_speed) draws from, so that
    the model's measured speed, the floor and the served requests embed the same texts."""
    items = generate(preload + fresh, HTTP_USERS, seed=HTTP_SEED)
    return HttpTexts(items[:preload], items[preload:])
