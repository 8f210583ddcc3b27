"""The load probe counts the front end's own CPU time as ours: a run during which only this
process worked must not be called busy because of it."""
import time

from hybridkit.study.quality import LoadProbe


def test_front_end_cpu_is_own_time():
    probe = LoadProbe.start()
    t0 = time.process_time()
    while time.process_time() - t0 < 0.3:      # burn CPU in this process, as the pump does
        pass
    load = probe.finish(wall_s=0.3)
    # the 0.3 s spent here are the run's own time, never the machine's other users'
    assert load["own_cpu_s"] >= 0.28


def test_busy_needs_share_and_more_than_the_noise_floor(monkeypatch):
    from hybridkit.study.quality import BUSY_FLOOR_S, others_busy

    monkeypatch.delenv("HK_BUSY_SHARE", raising=False)
    monkeypatch.delenv("HK_BUSY_FLOOR_S", raising=False)
    # 0.14 CPU-s beside a 0.5 s run on 2 CPUs: 14 % of the machine, but tick noise
    assert not others_busy(0.14, 0.5, 2)
    # the same share over a longer run is real load
    assert others_busy(1.4, 5.0, 2)
    # much CPU time, but a small share of a long run: not busy
    assert not others_busy(2.0, 100.0, 2)
    assert others_busy(BUSY_FLOOR_S + 0.05, 0.5, 2)


def test_garbage_busy_share_is_said_not_silent(monkeypatch, capsys):
    """HK_BUSY_SHARE that is no number: the default, with one warning naming it (issue 40)"""
    from hybridkit import errors
    from hybridkit.study.quality import BUSY_SHARE, busy_share

    monkeypatch.setattr(errors, "_warned", set())
    monkeypatch.setenv("HK_BUSY_SHARE", "abc")
    assert busy_share() == BUSY_SHARE and busy_share() == BUSY_SHARE
    err = capsys.readouterr().err
    assert err.count("hybridkit: warning: HK_BUSY_SHARE=abc is not a number: using 0.1") == 1
