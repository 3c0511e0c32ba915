"""The Ray task and pool on a real local Ray: games are a pure function of their inputs."""
import ray

from ocean.bots import coefficients, resolve_bot
from tuning.pool import Batch, BatchPool
from tuning.worker import play_batch, play_batch_task


def test_a_batch_is_paired_and_deterministic_in_process_and_on_ray(ray_cluster):
    params = coefficients.defaults()
    chaser = resolve_bot("chaser")
    local = play_batch(params, chaser, [11, 12, 13], trial=1)
    assert [(r["seed"], r["a_side"]) for r in local.rows] == [(11, 0), (11, 1), (12, 0), (12, 1), (13, 0), (13, 1)]
    assert local.seconds > 0 and local.player_turns > 0
    remote = ray.get(play_batch_task.remote(params, chaser, [11, 12, 13], 1))
    assert remote.rows == local.rows  # another process, the same games
    assert remote.worker != local.worker


def test_the_pool_returns_every_batch_and_cancels_a_trials_queue(ray_cluster):
    params = coefficients.defaults()
    pool = BatchPool(capacity=8)
    batches = [Batch(t, "train", resolve_bot("random"), (100 + t, 200 + t)) for t in range(3)]
    for b in batches:
        pool.submit(b, params)
    pool.submit(Batch(9, "train", resolve_bot("random"), (1,)), params)
    assert pool.trials() == {0, 1, 2, 9} and len(pool) == 4
    assert pool.cancel_trial(9) == 1 and len(pool) == 3
    done = []
    while len(pool):
        done += pool.wait(timeout=60)
    assert sorted(b.trial for b, _ in done) == [0, 1, 2]
    for b, result in done:
        assert [r["seed"] for r in result.rows] == [b.seeds[0], b.seeds[0], b.seeds[1], b.seeds[1]]
