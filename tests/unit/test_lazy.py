"""Lazy: a value built on its first use, once, whoever asks first (mnemo.services.lazy)."""

from __future__ import annotations

import threading

from mnemo.services.lazy import Lazy


def test_given_a_lazy_value_when_nothing_asks_then_it_is_never_built() -> None:
    calls: list[int] = []

    def build() -> str:
        calls.append(1)
        return "value"

    lazy = Lazy(build)

    assert lazy.built is False and calls == []


def test_given_a_lazy_value_when_asked_twice_then_it_is_built_once() -> None:
    calls: list[int] = []

    def build() -> list[int]:
        calls.append(1)
        return [42]

    lazy = Lazy(build)

    first, second = lazy.get(), lazy.get()

    assert first is second and first == [42]
    assert calls == [1] and lazy.built is True


def test_given_threads_asking_at_once_then_one_build_serves_them_all() -> None:
    started = threading.Event()
    calls: list[int] = []

    def build() -> object:
        started.wait(timeout=5)
        calls.append(1)
        return object()

    lazy = Lazy(build)
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(lazy.get())) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.set()
    for thread in threads:
        thread.join(timeout=5)

    assert calls == [1] and len(seen) == 4 and all(value is seen[0] for value in seen)


def test_a_ready_value_is_built_and_is_the_value_given() -> None:
    value = {"k": 1}

    lazy = Lazy.ready(value)

    assert lazy.built is True and lazy.get() is value


def test_reset_hands_back_a_built_value_once_and_the_next_get_builds_again() -> None:
    built: list[object] = []

    def build() -> object:
        built.append(object())
        return built[-1]

    never, used = Lazy(build), Lazy(build)
    first = used.get()

    assert never.reset() is None and built == [first]  # never built: nothing to hand back, nothing built now
    assert used.reset() is first and used.built is False
    assert used.reset() is None  # reset twice: the second has nothing
    assert used.get() is not first and len(built) == 2
