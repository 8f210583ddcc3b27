"""The load probe counts the front end's own CPU time as ours: a run during which only this
process worked must not be called busy because of it."""
import time

from hybridkit.quality import LoadProbe


def test_front_end_cpu_is_own_time():
    probe = LoadProbe.start()
    t0 = time.process_time()
    while time.process_time() - t0 < 0.3:      # burn CPU in this process, as the pump does
        pass
    load = probe.finish(wall_s=0.3)
    # the 0.3 s spent here are the run's own time, never the machine's other users'
    assert load["own_cpu_s"] >= 0.28
