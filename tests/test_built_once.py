"""What the sample builders read once is built once, however many threads ask for it at the same moment."""

import threading
import time

from lclab.synthetic.once import built_once


def test_sixty_four_threads_asking_at_once_build_the_value_once_and_all_get_it():
    builds = []

    @built_once(2)
    def corpus(name: str) -> tuple[str, ...]:
        builds.append(name)
        time.sleep(0.05)  # long enough that every thread asks while the first is still building
        return (name, "sentence")

    got, start = [], threading.Barrier(64)

    def ask():
        start.wait()
        got.append(corpus("essays"))

    threads = [threading.Thread(target=ask) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert builds == ["essays"] and got == [("essays", "sentence")] * 64
    corpus.cache_clear()
    corpus("essays")
    assert builds == ["essays", "essays"]
